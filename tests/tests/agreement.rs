//! The route table is written once, in each function's `ROUTES`; the local
//! router in Cargo.toml and the HttpApi events in template.yaml are
//! generated from it (`make routes`), and the OpenAPI document is written
//! by hand. These tests fail as soon as any of them disagrees with the
//! code, and when template.yaml's table (keys, indexes, stream) differs
//! from the one the code creates. `policies` does the same for each
//! function's IAM statements and its DynamoDB grant.

#[path = "agreement/policies.rs"]
mod policies;

use std::{collections::BTreeSet, fs, path::Path};

use serde_yaml::Value as Yaml;
use shared::{
    db::{Grant, table},
    http::Route,
};

type Entry = (String, String, String); // (function, METHOD, path)

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Every function crate, its route table and DynamoDB grant. A new
/// function must be added here (a test below checks that functions/ holds
/// no other crate).
fn functions() -> Vec<(&'static str, &'static [Route], &'static Grant)> {
    vec![
        ("accounts", accounts::ROUTES, &accounts::DYNAMODB),
        ("app-create", app_create::ROUTES, &app_create::DYNAMODB),
        ("app-crud", app_crud::ROUTES, &app_crud::DYNAMODB),
        ("infra", infra::ROUTES, &infra::DYNAMODB),
        ("hooks", hooks::ROUTES, &hooks::DYNAMODB),
        (
            "issue-search",
            issue_search::ROUTES,
            &issue_search::DYNAMODB,
        ),
        ("docs", docs::ROUTES, &docs::DYNAMODB),
        ("issues", issues::ROUTES, &issues::DYNAMODB),
        ("milestones", milestones::ROUTES, &milestones::DYNAMODB),
        ("repos", repos::ROUTES, &repos::DYNAMODB),
        // The stream consumer: a grant, no routes.
        ("stream", &[], &stream::DYNAMODB),
    ]
}

fn from_code() -> BTreeSet<Entry> {
    functions()
        .into_iter()
        .flat_map(|(f, routes, _)| {
            routes
                .iter()
                .map(move |r| (f.to_string(), r.method.to_string(), r.path.to_string()))
        })
        .collect()
}

fn from_cargo() -> BTreeSet<Entry> {
    let text = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    let router = doc["workspace"]["metadata"]["lambda"]["watch"]["router"]
        .as_table()
        .expect("router table");
    let mut out = BTreeSet::new();
    for (path, routes) in router {
        // The catch-all path and the methods a path does not serve go to
        // the fallback function (checked by `cargo xtask routes --check`).
        let Some(routes) = routes.as_array() else {
            assert_eq!(routes.as_str(), Some("fallback"), "{path}");
            continue;
        };
        for r in routes
            .iter()
            .filter(|r| r["function"].as_str() != Some("fallback"))
        {
            out.insert((
                r["function"].as_str().unwrap().into(),
                r["method"].as_str().unwrap().into(),
                path.clone(),
            ));
        }
    }
    out
}

fn template() -> Yaml {
    serde_yaml::from_str(&fs::read_to_string(root().join("template.yaml")).unwrap()).unwrap()
}

/// Each function of template.yaml: its binary's name and its properties.
fn template_functions() -> Vec<(String, Yaml)> {
    let t = template();
    t["Resources"]
        .as_mapping()
        .unwrap()
        .values()
        .filter(|res| res["Type"].as_str() == Some("AWS::Serverless::Function"))
        .map(|res| {
            let binary = res["Metadata"]["BuildProperties"]["Binary"]
                .as_str()
                .expect("each function names its binary");
            (binary.to_string(), res["Properties"].clone())
        })
        .collect()
}

fn from_template() -> BTreeSet<Entry> {
    let mut out = BTreeSet::new();
    for (binary, props) in template_functions() {
        if binary == "fallback" {
            continue; // API Gateway's $default route, no path of its own
        }
        for (_, ev) in props["Events"].as_mapping().into_iter().flatten() {
            if binary == "stream" {
                // The table's stream (tests/tests/stack.rs checks it) and
                // the webhook sweeper's schedule.
                let kind = ev["Type"].as_str();
                assert!(matches!(kind, Some("DynamoDB" | "Schedule")), "{kind:?}");
                continue;
            }
            assert_eq!(ev["Type"].as_str(), Some("HttpApi"));
            let p = &ev["Properties"];
            out.insert((
                binary.clone(),
                p["Method"].as_str().unwrap().to_uppercase(),
                p["Path"].as_str().unwrap().into(),
            ));
        }
    }
    out
}

fn without_function(s: &BTreeSet<Entry>) -> BTreeSet<(String, String)> {
    s.iter().map(|(_, m, p)| (m.clone(), p.clone())).collect()
}

#[test]
fn cargo_router_matches_the_functions() {
    assert_eq!(
        from_cargo(),
        from_code(),
        "Cargo.toml [workspace.metadata.lambda.watch.router] vs ROUTES"
    );
}

#[test]
fn template_matches_the_functions() {
    assert_eq!(
        from_template(),
        from_code(),
        "template.yaml HttpApi events vs ROUTES"
    );
}

#[test]
fn every_route_is_in_the_openapi_document() {
    let doc: Yaml =
        serde_yaml::from_str(&fs::read_to_string(root().join("docs/openapi.yaml")).unwrap())
            .unwrap();
    let mut documented = BTreeSet::new();
    for (path, ops) in doc["paths"].as_mapping().unwrap() {
        for (method, _) in ops.as_mapping().unwrap() {
            let m = method.as_str().unwrap();
            if ["get", "put", "post", "delete", "patch", "head", "options"].contains(&m) {
                documented.insert((m.to_uppercase(), path.as_str().unwrap().to_string()));
            }
        }
    }
    let code = without_function(&from_code());
    let missing: Vec<_> = code.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "routes missing from docs/openapi.yaml: {missing:?}"
    );
    let stale: Vec<_> = documented.difference(&code).collect();
    assert!(
        stale.is_empty(),
        "documented routes no function serves: {stale:?}"
    );
}

/// What `s` points at: a `$ref` into `components` (schemas or
/// responses), the object of an `anyOf`/`oneOf`/`allOf` (a nullable
/// object), or `s` itself.
fn resolve<'a>(doc: &'a Yaml, s: &'a Yaml) -> &'a Yaml {
    if let Some(r) = s["$ref"].as_str() {
        let mut parts = r.rsplit('/');
        let name = parts.next().unwrap_or_default();
        let kind = parts.next().unwrap_or_default();
        return resolve(doc, &doc["components"][kind][name]);
    }
    for combined in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = s[combined]
            .as_sequence()
            .and_then(|all| all.iter().find(|x| !x["$ref"].is_null()))
        {
            return resolve(doc, first);
        }
    }
    s
}

/// Every field a route's response fitter may leave out (its `limits`'
/// `omit`, e.g. `body` or `milestone.description`) is optional in the
/// document's schema of that response and says when it is left out:
/// schema-checking clients and fuzzers would reject such a page otherwise.
#[test]
fn fields_a_large_page_leaves_out_are_optional_in_the_openapi_document() {
    let doc: Yaml =
        serde_yaml::from_str(&fs::read_to_string(root().join("docs/openapi.yaml")).unwrap())
            .unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (_, routes, _) in functions() {
        for r in routes.iter().filter(|r| !r.limits.omit.is_empty()) {
            let op = &doc["paths"][r.path][r.method.to_lowercase().as_str()];
            let ok = resolve(&doc, &op["responses"]["200"]);
            let list = resolve(&doc, &ok["content"]["application/json"]["schema"]);
            let item = resolve(&doc, &list["items"]);
            for field in r.limits.omit {
                checked += 1;
                let mut schema = item;
                let mut parts: Vec<&str> = field.split('.').collect();
                let last = parts.pop().unwrap_or_default();
                for p in parts {
                    let inner = resolve(&doc, &schema["properties"][p]);
                    // An array of objects (labels) or an object, maybe nullable.
                    schema = match &inner["items"] {
                        Yaml::Null => inner,
                        items => resolve(&doc, items),
                    };
                }
                // A shared limit may name a field this route never sends.
                if schema["properties"][last].is_null() {
                    continue;
                }
                let required = schema["required"]
                    .as_sequence()
                    .is_some_and(|req| req.iter().any(|f| f.as_str() == Some(last)));
                let described = schema["properties"][last]["description"]
                    .as_str()
                    .is_some_and(|d| d.contains("X-Omitted-Fields"));
                if required || !described {
                    wrong.push(format!(
                        "{} {}: `{field}` (required: {required}, says when it is left out: {described})",
                        r.method, r.path
                    ));
                }
            }
        }
    }
    assert!(checked >= 10, "only {checked} fields checked");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn every_function_crate_is_checked() {
    let mut dirs: Vec<String> = fs::read_dir(root().join("functions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut known: Vec<String> = functions().iter().map(|(f, _, _)| f.to_string()).collect();
    known.push("fallback".into());
    known.sort();
    assert_eq!(dirs, known, "add new functions to functions() in this file");
}

#[test]
fn template_table_matches_the_code() {
    let t = template();
    let props = &t["Resources"]["Table"]["Properties"];
    assert_eq!(props["BillingMode"].as_str(), Some("PAY_PER_REQUEST"));
    assert_eq!(
        props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"].as_bool(),
        Some(true)
    );
    assert_eq!(props["DeletionProtectionEnabled"].as_bool(), Some(true));
    assert_eq!(
        props["TimeToLiveSpecification"]["AttributeName"].as_str(),
        Some(table::TTL),
        "the TTL attribute the idempotency records use"
    );
    assert_eq!(
        props["TimeToLiveSpecification"]["Enabled"].as_bool(),
        Some(true)
    );
    assert_eq!(
        props["StreamSpecification"]["StreamViewType"].as_str(),
        Some(table::STREAM_VIEW.as_str()),
        "the stream the consumer reads, as bootstrap turns it on"
    );
    let keys = |schema: &Yaml| -> Vec<(String, String)> {
        schema
            .as_sequence()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k["AttributeName"].as_str().unwrap().into(),
                    k["KeyType"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let pair = |a: &str, b: &str| {
        vec![
            (a.to_string(), "HASH".to_string()),
            (b.to_string(), "RANGE".to_string()),
        ]
    };
    assert_eq!(keys(&props["KeySchema"]), pair(table::PK, table::SK));
    let attrs: BTreeSet<(String, String)> = props["AttributeDefinitions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["AttributeName"].as_str().unwrap().into(),
                a["AttributeType"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String)> = table::key_attributes()
        .into_iter()
        .map(|a| (a.to_string(), "S".to_string()))
        .collect();
    assert_eq!(attrs, want);
    let gsis = props["GlobalSecondaryIndexes"].as_sequence().unwrap();
    assert_eq!(gsis.len(), table::INDEXES.len());
    for (ix, y) in table::INDEXES.iter().zip(gsis) {
        assert_eq!(y["IndexName"].as_str(), Some(ix.name));
        assert_eq!(
            keys(&y["KeySchema"]),
            pair(ix.pk, ix.sk),
            "index {}",
            ix.name
        );
        assert_eq!(y["Projection"]["ProjectionType"].as_str(), Some("ALL"));
    }
}

fn all_routes() -> Vec<(&'static str, Route)> {
    functions()
        .into_iter()
        .flat_map(|(f, routes, _)| routes.iter().map(move |r| (f, *r)))
        .collect()
}

/// Token and runner credential creation show their secret once, so a
/// replay could not repeat it.
const NOT_IDEMPOTENT_POST: [&str; 2] = [
    "/api/v1/users/{username}/tokens",
    "/api/v1/servers/{uuid}/runners",
];

/// Deploy triggers act on GET too, as Coolify 4.0 does, so a retried GET
/// must not queue twice.
const IDEMPOTENT_GET: [&str; 4] = [
    "/api/v1/deploy",
    "/api/v1/applications/{uuid}/start",
    "/api/v1/applications/{uuid}/stop",
    "/api/v1/applications/{uuid}/restart",
];

/// Whether a route must honour `Idempotency-Key`: every POST but those
/// that show a secret once and the runner protocol's (a runner is no
/// key's caller; its calls are safe to repeat by design), and the
/// triggers' GETs.
fn wants_idempotency(r: &Route) -> bool {
    match r.method {
        "POST" => !NOT_IDEMPOTENT_POST.contains(&r.path) && !r.path.starts_with("/runner/"),
        "GET" => IDEMPOTENT_GET.contains(&r.path),
        _ => false,
    }
}

#[test]
fn every_create_route_honours_idempotency_keys() {
    let creates = [
        "/api/v1/admin/users",
        "/api/v1/orgs",
        "/api/v1/orgs/{org}/teams",
        "/api/v1/user/repos",
        "/api/v1/orgs/{org}/repos",
        "/api/v1/admin/users/{username}/repos",
        "/api/v1/repos/{owner}/{repo}/labels",
        "/api/v1/orgs/{org}/labels",
        "/api/v1/repos/{owner}/{repo}/milestones",
        "/api/v1/repos/{owner}/{repo}/issues",
        "/api/v1/repos/{owner}/{repo}/pulls",
        "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies",
        "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks",
        "/api/v1/repos/{owner}/{repo}/issues/{index}/comments",
        "/api/v1/applications/public",
        "/api/v1/applications/private-provider-app",
        "/api/v1/applications/private-github-app",
        "/api/v1/applications/private-deploy-key",
        "/api/v1/applications/dockerfile",
        "/api/v1/applications/dockerimage",
        "/api/v1/applications/dockercompose",
        "/api/v1/projects",
        "/api/v1/projects/{uuid}/environments",
        "/api/v1/servers",
        "/api/v1/servers/{uuid}/destinations",
        "/api/v1/security/keys",
        "/api/v1/provider-apps",
        "/api/v1/github-apps",
    ];
    let routes = all_routes();
    for path in creates {
        let found: Vec<_> = routes
            .iter()
            .filter(|(_, r)| r.method == "POST" && r.path == path)
            .collect();
        assert_eq!(found.len(), 1, "POST {path}: declared exactly once");
        assert!(found[0].1.idempotent, "POST {path}: must be idempotent");
    }
}

#[test]
fn idempotency_is_declared_for_posts_and_triggers_except_secrets_and_runners() {
    for (f, r) in all_routes() {
        assert_eq!(
            r.idempotent,
            wants_idempotency(&r),
            "{f}: {} {} declares idempotent: {}",
            r.method,
            r.path,
            r.idempotent
        );
    }
    for path in NOT_IDEMPOTENT_POST {
        assert!(
            all_routes()
                .iter()
                .any(|(_, r)| r.method == "POST" && r.path == path),
            "{path} is still a route"
        );
    }
}

#[test]
fn every_route_declares_visibility_and_a_bounded_body() {
    for (f, r) in all_routes() {
        assert!(
            !r.sees.is_empty(),
            "{f}: {} {} declares no `sees` entry",
            r.method,
            r.path
        );
        assert!(
            r.limits.body > 0 && r.limits.body <= 1 << 20,
            "{f}: {} {} body limit {} is not in 1..=1 MiB",
            r.method,
            r.path,
            r.limits.body
        );
    }
}
