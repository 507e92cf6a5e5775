//! The parameters: each is checked at deploy time, the example config
//! sets or shows each, and tracing is one of them.

use std::{collections::BTreeSet, fs, path::Path};

use serde_yaml::Value as Yaml;

use super::{tagged, template};

#[test]
fn every_parameter_fails_a_bad_value_at_deploy_time() {
    let t = template();
    let params = t["Parameters"].as_mapping().unwrap();
    assert!(!params.is_empty());
    for (name, p) in params {
        let name = name.as_str().unwrap();
        let bounded = match p["Type"].as_str().unwrap() {
            "String" => p.get("AllowedPattern").is_some() || p.get("AllowedValues").is_some(),
            "Number" => {
                p.get("AllowedValues").is_some()
                    || (p.get("MinValue").is_some() && p.get("MaxValue").is_some())
            }
            other => panic!("{name}: parameter type {other} is not checked here"),
        };
        assert!(bounded, "{name} accepts any value");
        assert!(p.get("Description").is_some(), "{name} has no description");
        if let Some(pattern) = p["AllowedPattern"].as_str() {
            assert!(
                pattern.starts_with('^') && pattern.ends_with('$'),
                "{name}: anchor the pattern"
            );
        }
    }
}

/// The example lists only what it sets (SAM refuses an empty `Key=`): every
/// entry names a parameter, and every parameter it leaves out has a default
/// and is shown commented out. scripts/check-samconfig.py runs each entry
/// through the SAM CLI's own parser and the template's constraints.
#[test]
fn the_example_config_sets_or_shows_every_parameter() {
    let t = template();
    let params = t["Parameters"].as_mapping().unwrap();
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samconfig.example.toml"
    ));
    let text = fs::read_to_string(path).unwrap();
    let config: toml::Value = toml::from_str(&text).unwrap();
    let overrides: BTreeSet<&str> =
        config["default"]["deploy"]["parameters"]["parameter_overrides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let (name, value) = o.as_str().unwrap().split_once('=').unwrap();
                assert!(!value.is_empty(), "{name}= is empty: SAM refuses it");
                name
            })
            .collect();
    for (name, spec) in params {
        let name = name.as_str().unwrap();
        if overrides.contains(name) {
            continue;
        }
        assert!(
            spec.get("Default").is_some(),
            "{name} is left out but has no default"
        );
        assert!(
            text.contains(&format!("#   \"{name}=")),
            "{name} is left out and not shown"
        );
    }
    for name in &overrides {
        assert!(params.contains_key(*name), "{name} is not a parameter");
    }
}

/// Tracing is a parameter, off by default (docs/operations.md "Tracing" says why).
#[test]
fn tracing_is_a_choice_off_by_default() {
    let t = template();
    let tracing = tagged(&t["Globals"]["Function"]["Tracing"], "If")
        .and_then(Yaml::as_sequence)
        .unwrap();
    assert_eq!(tracing[0].as_str(), Some("HasTracing"));
    assert_eq!(tracing[1].as_str(), Some("Active"));
    assert_eq!(tracing[2].as_str(), Some("PassThrough"));
    assert_eq!(t["Parameters"]["Tracing"]["Default"].as_str(), Some("off"));
}
