//! Releases: versions behind an alias, rolled back on alarms.

use serde_yaml::Value as Yaml;

use super::{of_type, reference, tagged, template};

/// Every function publishes versions behind `live`, which CodeDeploy moves
/// by DeploymentStrategy (all at once with Alarms=off), rolling back when
/// the function's own alarm, which watches the alias, or the API's 5xx
/// alarm fires. scripts/check-transform.py checks what SAM makes of it.
#[test]
fn releases_shift_traffic_through_an_alias_and_roll_back_on_alarms() {
    let t = template();
    let globals = &t["Globals"]["Function"];
    assert_eq!(globals["AutoPublishAlias"].as_str(), Some("live"));
    let kind = tagged(&globals["DeploymentPreference"]["Type"], "If")
        .and_then(Yaml::as_sequence)
        .expect("the strategy depends on Alarms");
    assert_eq!(kind[0].as_str(), Some("HasAlarms"));
    assert_eq!(
        tagged(&kind[1], "Sub").and_then(Yaml::as_str),
        Some("CodeDeployDefault.Lambda${DeploymentStrategy}")
    );
    assert_eq!(kind[2].as_str(), Some("AllAtOnce"));
    let strategies = t["Parameters"]["DeploymentStrategy"]["AllowedValues"]
        .as_sequence()
        .unwrap();
    assert!(strategies.iter().any(|s| s.as_str() == Some("AllAtOnce")));
    assert!(
        t["Parameters"]["DeploymentStrategy"]["Default"]
            .as_str()
            .unwrap()
            .starts_with("Canary")
    );
    for (id, f) in of_type(&t, "AWS::Serverless::Function") {
        let alarms = tagged(&f["Properties"]["DeploymentPreference"]["Alarms"], "If")
            .and_then(Yaml::as_sequence)
            .unwrap_or_else(|| panic!("{id}: no rollback alarms"));
        assert_eq!(alarms[0].as_str(), Some("HasAlarms"), "{id}");
        let on: Vec<&str> = alarms[1]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(reference)
            .collect();
        let own = format!("{id}Alarm");
        assert!(
            on.contains(&own.as_str()),
            "{id}: its own alarm rolls it back"
        );
        if id != "StreamFunction" {
            assert!(
                on.contains(&"Api5xxAlarm"),
                "{id}: the API's 5xx rolls it back"
            );
        }
        assert_eq!(alarms[2].as_sequence().map(Vec::len), Some(0), "{id}");
        // The alarm watches the alias, which every invocation goes through.
        let text = serde_yaml::to_string(&t["Resources"][own.as_str()]).unwrap();
        assert_eq!(
            text.matches("Name: Resource").count(),
            2,
            "{own}: errors and throttles of the alias"
        );
        assert!(text.contains(&format!("${{{id}}}:live")), "{own}");
    }
}
