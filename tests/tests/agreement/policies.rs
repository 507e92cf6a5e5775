//! Each function's IAM statements in template.yaml grant exactly its
//! DynamoDB grant (`dynamodb { .. }` in its `routes!` table, which its `Db`
//! enforces): the same actions on the same resources, as inline
//! statements. No function may scan the table or administer it: the
//! bootstrap and `check-data` run from an operator's machine.

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml::Value as Yaml;
use shared::db::{Action, Permission, Resource};

use super::{functions, template_functions};

/// One action of one statement: (function binary, IAM action, resource).
type Statement = (String, String, Yaml);

/// Every action each function's `Policies:` allows. Only inline statements
/// are accepted: SAM's policy templates (`DynamoDBCrudPolicy`, ...) grant
/// `Scan`, `DescribeTable` and more than any function calls.
fn statements() -> Vec<Statement> {
    let mut out = Vec::new();
    for (binary, props) in template_functions() {
        for policy in props["Policies"].as_sequence().into_iter().flatten() {
            let Some(statements) = policy["Statement"].as_sequence() else {
                panic!("{binary}: a policy that is not an inline statement: {policy:?}");
            };
            for s in statements {
                assert_eq!(s["Effect"].as_str(), Some("Allow"), "{binary}: {s:?}");
                for action in s["Action"].as_sequence().expect("a list of actions") {
                    let iam = action.as_str().expect("an action name").to_string();
                    out.push((binary.clone(), iam, s["Resource"].clone()));
                }
            }
        }
    }
    out
}

/// Where a statement applies: the table's ARN or its indexes' ARNs, as the
/// template names them (nothing else is accepted): the existing table's
/// when ExistingTableName is set, else the stack's own.
fn resource(binary: &str, y: &Yaml) -> Resource {
    named_resource(y).unwrap_or_else(|| {
        panic!("{binary}: a resource other than the table or its indexes: {y:?}")
    })
}

fn named_resource(y: &Yaml) -> Option<Resource> {
    fn tagged(y: &Yaml) -> Option<(String, &Yaml)> {
        match y {
            Yaml::Tagged(t) => Some((t.tag.to_string(), &t.value)),
            _ => None,
        }
    }
    let existing = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${ExistingTableName}";
    let (tag, choice) = tagged(y)?;
    let choice = choice.as_sequence()?;
    if tag != "!If" || choice.len() != 3 || choice[0].as_str() != Some("UsesExistingTable") {
        return None;
    }
    let (existing_tag, existing_arn) = tagged(&choice[1])?;
    let (own_tag, own_arn) = tagged(&choice[2])?;
    let existing_arn = existing_arn.as_str()?;
    match (existing_tag.as_str(), own_tag.as_str(), own_arn.as_str()?) {
        ("!Sub", "!GetAtt", "Table.Arn") if existing_arn == existing => Some(Resource::Table),
        ("!Sub", "!Sub", "${Table.Arn}/index/*")
            if existing_arn.strip_suffix("/index/*") == Some(existing) =>
        {
            Some(Resource::Indexes)
        }
        _ => None,
    }
}

/// What template.yaml grants each function (every function is listed,
/// those without `Policies:` with nothing).
fn granted_by_template() -> BTreeMap<String, BTreeSet<Permission>> {
    let mut out: BTreeMap<String, BTreeSet<Permission>> = template_functions()
        .into_iter()
        .map(|(binary, _)| (binary, BTreeSet::new()))
        .collect();
    for (binary, iam, on) in statements() {
        if iam.starts_with("kms:") {
            continue; // secrets_key_grants_only_the_functions_that_seal
        }
        let action = iam
            .strip_prefix("dynamodb:")
            .and_then(Action::parse)
            .unwrap_or_else(|| panic!("{binary}: {iam} is not an action a function may hold"));
        let on = resource(&binary, &on);
        out.entry(binary)
            .or_default()
            .insert(Permission { action, on });
    }
    out
}

#[test]
fn template_policies_match_the_grants() {
    let template = granted_by_template();
    for (function, _, grant) in functions() {
        let code: BTreeSet<Permission> = grant.permissions().collect();
        assert_eq!(
            template.get(function),
            Some(&code),
            "{function}: template.yaml's statements vs its grant (run `make routes`)"
        );
    }
    assert_eq!(
        template.get("fallback"),
        Some(&BTreeSet::new()),
        "the fallback function never reads the table"
    );
}

/// The functions that seal or open secrets (environment variables for
/// app-crud, the runner's claim for infra) and nothing else may use the
/// stack's KMS key, and only to make and unwrap data keys.
const SEALING: [&str; 2] = ["app-crud", "infra"];

#[test]
fn secrets_key_grants_only_the_functions_that_seal() {
    let mut holders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (binary, iam, on) in statements() {
        if let Some(action) = iam.strip_prefix("kms:") {
            let Yaml::Tagged(t) = &on else {
                panic!("{binary}: {iam} on {on:?}")
            };
            assert_eq!(
                (t.tag.to_string().as_str(), t.value.as_str()),
                ("!GetAtt", Some("SecretsKey.Arn")),
                "{binary}: {iam}"
            );
            holders
                .entry(binary)
                .or_default()
                .insert(action.to_string());
        }
    }
    let both = BTreeSet::from(["Decrypt".to_string(), "GenerateDataKey".to_string()]);
    let want: BTreeMap<String, BTreeSet<String>> = SEALING
        .iter()
        .map(|f| (f.to_string(), both.clone()))
        .collect();
    assert_eq!(holders, want);
}

#[test]
fn no_function_may_scan_or_administer_the_table() {
    for (function, _, grant) in functions() {
        assert!(
            !grant.permissions().any(|p| p.action == Action::Scan),
            "{function} is granted Scan"
        );
    }
    for (binary, iam, _) in statements() {
        let forbidden = [
            "dynamodb:Scan",
            "dynamodb:DescribeTable",
            "dynamodb:CreateTable",
        ];
        assert!(
            !forbidden.contains(&iam.as_str()) && !iam.contains('*'),
            "{binary} is allowed {iam}"
        );
    }
}

#[test]
fn grants_name_each_action_once_and_explain_rare_ones() {
    for (function, _, grant) in functions() {
        for list in [grant.table, grant.indexes] {
            let unique: BTreeSet<&Action> = list.iter().collect();
            assert_eq!(unique.len(), list.len(), "{function}: {list:?}");
        }
        assert!(
            grant.indexes.iter().all(|&a| a == Action::Query),
            "{function}: only queries read an index"
        );
        for (action, why) in grant.rare {
            assert!(
                grant.table.contains(action) || grant.indexes.contains(action),
                "{function}: rare {action:?} is not granted"
            );
            assert!(!why.is_empty(), "{function}: say why {action:?} is rare");
        }
    }
}
