//! The table: ExistingTableName moves everything that uses it.

use serde_yaml::Value as Yaml;

use super::{reference, resources, table_in_use, tagged, template};

/// Whether a value names the stack's own table (`!Ref Table`,
/// `!GetAtt Table.X`, `${Table}` or `${Table.X}` in a `!Sub`).
fn names_own_table(v: &Yaml) -> bool {
    match v {
        Yaml::Tagged(t) => {
            let tag = t.tag.to_string();
            let own = match (tag.trim_start_matches('!'), &t.value) {
                ("Ref", Yaml::String(s)) => s == "Table",
                ("GetAtt", Yaml::String(s)) => s.starts_with("Table."),
                ("Sub", Yaml::String(s)) => s.contains("${Table}") || s.contains("${Table."),
                _ => false,
            };
            own || names_own_table(&t.value)
        }
        Yaml::Sequence(s) => s.iter().any(names_own_table),
        Yaml::Mapping(m) => m.values().any(names_own_table),
        _ => false,
    }
}

/// The paths (dotted) under `v` where the stack's own table is named other
/// than as the "else" of `!If [UsesExistingTable, ..]`.
fn own_table_outside_the_choice(path: &str, v: &Yaml, out: &mut Vec<String>) {
    match v {
        Yaml::Tagged(t) => {
            if let Some(c) = tagged(v, "If").and_then(Yaml::as_sequence)
                && c.first().and_then(Yaml::as_str) == Some("UsesExistingTable")
            {
                if names_own_table(&c[1]) {
                    out.push(format!("{path} (the existing table's branch)"));
                }
                return;
            }
            let own = match (t.tag.to_string().trim_start_matches('!'), &t.value) {
                ("Ref", Yaml::String(s)) => s == "Table",
                ("GetAtt", Yaml::String(s)) => s.starts_with("Table."),
                ("Sub", Yaml::String(s)) => s.contains("${Table}") || s.contains("${Table."),
                _ => false,
            };
            if own {
                out.push(path.to_string());
            }
            own_table_outside_the_choice(path, &t.value, out);
        }
        Yaml::Sequence(s) => {
            for (i, x) in s.iter().enumerate() {
                own_table_outside_the_choice(&format!("{path}[{i}]"), x, out);
            }
        }
        Yaml::Mapping(m) => {
            for (k, x) in m {
                let key = k.as_str().unwrap_or("?");
                own_table_outside_the_choice(&format!("{path}.{key}"), x, out);
            }
        }
        _ => {}
    }
}

/// ExistingTableName moves everything that uses the table (the functions'
/// TABLE_NAME and grants, the stream consumer, the alarm, the dashboard,
/// the TableName output) to an existing table, while the stack's own Table
/// stays (a condition on it would delete it, or orphan it).
#[test]
fn an_existing_table_replaces_the_own_one_everywhere() {
    let t = template();
    let table = &t["Resources"]["Table"];
    assert!(table.get("Condition").is_none(), "Table stays in the stack");
    assert_eq!(table["DeletionPolicy"].as_str(), Some("Retain"));
    let mut outside = Vec::new();
    for (id, r) in resources(&t) {
        let id = id.as_str().unwrap();
        if id != "Table" {
            own_table_outside_the_choice(id, r, &mut outside);
        }
    }
    own_table_outside_the_choice("Globals", &t["Globals"], &mut outside);
    for (id, o) in t["Outputs"].as_mapping().unwrap() {
        let id = id.as_str().unwrap();
        if id != "StackTableName" {
            own_table_outside_the_choice(&format!("Outputs.{id}"), o, &mut outside);
        }
    }
    assert_eq!(
        outside,
        Vec::<String>::new(),
        "names Table whatever ExistingTableName says"
    );
    let env = &t["Globals"]["Function"]["Environment"]["Variables"];
    assert!(table_in_use(&env["TABLE_NAME"]));
    assert!(table_in_use(&t["Outputs"]["TableName"]["Value"]));
    assert_eq!(
        reference(&t["Outputs"]["StackTableName"]["Value"]),
        Some("Table")
    );
    let rule = &t["Rules"]["ExistingTableNeedsItsStream"];
    assert!(
        serde_yaml::to_string(rule)
            .unwrap()
            .contains("ExistingTableStreamArn"),
        "a table without its stream is refused before anything changes"
    );
}
