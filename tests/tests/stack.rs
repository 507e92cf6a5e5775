//! What template.yaml promises an operator besides the routes and the
//! table (tests/tests/agreement.rs): every parameter is checked at deploy
//! time, every function logs to its own expiring group and has an alarm,
//! the API is throttled and logged, the stream consumer's mapping is
//! bounded, reports partial failures, sends what it skips somewhere and is
//! watched, and the dashboard is well-formed and shows every function.
//!
//! By theme: `parameters` (and the example config), `monitoring` (logs,
//! alarms, the dashboard), `throttling`, `stream`, `releases`, `domain`
//! and `table` (an existing one instead of the stack's own); the helpers
//! that read template.yaml are here.

#[path = "stack/domain.rs"]
mod domain;
#[path = "stack/monitoring.rs"]
mod monitoring;
#[path = "stack/parameters.rs"]
mod parameters;
#[path = "stack/releases.rs"]
mod releases;
#[path = "stack/stream.rs"]
mod stream;
#[path = "stack/table.rs"]
mod table;
#[path = "stack/throttling.rs"]
mod throttling;

use std::{collections::BTreeSet, fs, path::Path};

use serde_yaml::{Mapping, Value as Yaml};

fn template() -> Yaml {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml"));
    serde_yaml::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn resources(t: &Yaml) -> &Mapping {
    t["Resources"].as_mapping().unwrap()
}

/// The operand of a short-form intrinsic such as `!Ref X`.
fn tagged<'a>(v: &'a Yaml, tag: &str) -> Option<&'a Yaml> {
    match v {
        Yaml::Tagged(t) if t.tag == tag => Some(&t.value),
        _ => None,
    }
}

fn reference(v: &Yaml) -> Option<&str> {
    tagged(v, "Ref").and_then(Yaml::as_str)
}

/// Logical ids of the resources of one type.
fn of_type<'a>(t: &'a Yaml, ty: &str) -> Vec<(&'a str, &'a Yaml)> {
    resources(t)
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(ty))
        .map(|(k, r)| (k.as_str().unwrap(), r))
        .collect()
}

/// Every `!Ref`/`!GetAtt` operand inside a value, recursively.
fn refs(v: &Yaml, out: &mut BTreeSet<String>) {
    match v {
        Yaml::Tagged(t) => {
            if let ("Ref" | "GetAtt", Some(s)) =
                (t.tag.to_string().trim_start_matches('!'), t.value.as_str())
            {
                out.insert(s.split('.').next().unwrap().to_string());
            }
            refs(&t.value, out);
        }
        Yaml::Sequence(s) => s.iter().for_each(|x| refs(x, out)),
        Yaml::Mapping(m) => m.values().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// `!If [UsesExistingTable, !Ref ExistingTableName, !Ref Table]`: the name
/// of the table the stack serves from.
fn table_in_use(v: &Yaml) -> bool {
    tagged(v, "If")
        .and_then(Yaml::as_sequence)
        .is_some_and(|c| {
            c.len() == 3
                && c[0].as_str() == Some("UsesExistingTable")
                && reference(&c[1]) == Some("ExistingTableName")
                && reference(&c[2]) == Some("Table")
        })
}
