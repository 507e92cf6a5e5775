//! `public-only` tokens never read or change anything private. One table
//! has a row for every route of every function; each row runs against a
//! private world (403 naming the route's scope, nothing stored changes) and
//! against a public one (answered, not refused), so the check is neither
//! missing nor refusing everything.

use std::collections::BTreeSet;

use api_tests::{Api, Auth, Reply, TestUser, unique};
use serde_json::{Value, json};
use shared::{
    auth::scope::Category,
    http::{Guard, Route},
};

const LIMITED: &str = "token scope is limited to public";

/// Every deploy route: all are refused to `public-only` tokens.
const DEPLOY: &[&str] = &[
    "POST /applications/public", "POST /applications/private-provider-app",
    "POST /applications/private-github-app", "POST /applications/private-deploy-key",
    "POST /applications/dockerfile", "POST /applications/dockerimage",
    "POST /applications/dockercompose", "GET /applications", "GET /applications/{uuid}",
    "PATCH /applications/{uuid}", "DELETE /applications/{uuid}", "GET /projects",
    "POST /projects", "GET /projects/{uuid}", "DELETE /projects/{uuid}",
    "GET /projects/{uuid}/environments", "POST /projects/{uuid}/environments",
    "GET /projects/{uuid}/{environment}", "GET /servers", "POST /servers",
    "GET /servers/{uuid}", "PATCH /servers/{uuid}", "DELETE /servers/{uuid}",
    "GET /servers/{uuid}/destinations", "POST /servers/{uuid}/destinations",
    "GET /security/keys", "POST /security/keys", "GET /security/keys/{uuid}",
    "DELETE /security/keys/{uuid}", "GET /provider-apps", "POST /provider-apps",
    "GET /github-apps", "POST /github-apps", "GET /deployments", "GET /deployments/{uuid}",
    "GET /deployments/applications/{uuid}",
];

fn all_routes() -> Vec<&'static Route> {
    [accounts::ROUTES, repos::ROUTES, milestones::ROUTES, issues::ROUTES]
        .into_iter()
        .chain([issue_search::ROUTES, app_create::ROUTES, app_crud::ROUTES])
        .chain([infra::ROUTES])
        .flatten()
        .collect()
}

/// Which `public-only` token a row is sent with.
#[derive(Clone, Copy)]
enum Who {
    /// The owner of every organisation (a public user).
    Owner,
    /// The caller's own account: limited in the private world.
    Me,
    /// A site admin.
    Admin,
}

struct Row {
    who: Who,
    method: &'static str,
    route: String,
    path: String,
    body: Option<Value>,
}

fn row(who: Who, route: &'static str, path: String, body: Option<Value>) -> Row {
    let (method, route) = route.split_once(' ').expect("METHOD /path");
    Row { who, method, route: route.into(), path, body }
}

/// The names one side's rows use.
#[derive(Default)]
struct World {
    org: String,
    repo: String,
    team: i64,
    label: i64,
    milestone: i64,
    /// A user whose account is the target: limited (private) or public.
    person: String,
    /// A public user added, blocked, made a collaborator or reviewer.
    member: String,
    /// `private` in create bodies; `visibility` of created accounts.
    private: bool,
    visibility: &'static str,
    /// A name for what the rows create.
    fresh: String,
    /// A token of `person`, for the delete row.
    token: String,
    mark: String,
}

fn rows(w: &World) -> Vec<Row> {
    use Who::*;
    let (o, p, m, f) = (&w.org, &w.person, &w.member, &w.fresh);
    let r = format!("/api/v1/repos/{o}/{}", w.repo);
    let (t, l, ms) = (w.team, w.label, w.milestone);
    let (repo, private, vis) = (&w.repo, w.private, w.visibility);
    let link = |index: i64| Some(json!({"owner": o, "repo": repo, "index": index}));
    let mut rows = vec![
        row(Me, "GET /api/v1/user", "/api/v1/user".into(), None),
        row(Owner, "GET /api/v1/users/{username}", format!("/api/v1/users/{o}"), None),
        row(Admin, "POST /api/v1/users/{username}/tokens", format!("/api/v1/users/{p}/tokens"),
            Some(json!({"name": f, "scopes": ["read:issue"]}))),
        row(Admin, "GET /api/v1/users/{username}/tokens", format!("/api/v1/users/{p}/tokens"), None),
        row(Admin, "DELETE /api/v1/users/{username}/tokens/{id}",
            format!("/api/v1/users/{p}/tokens/{}", w.token), None),
        row(Admin, "POST /api/v1/admin/users", "/api/v1/admin/users".into(),
            Some(json!({"username": format!("{f}u"), "email": format!("{f}@example.com"),
                "password": "long-enough-1", "visibility": vis}))),
        row(Admin, "POST /api/v1/admin/users/{username}/repos",
            format!("/api/v1/admin/users/{p}/repos"), Some(json!({"name": f, "private": private}))),
        row(Me, "POST /api/v1/orgs", "/api/v1/orgs".into(),
            Some(json!({"username": format!("{f}o"), "visibility": vis}))),
        row(Owner, "GET /api/v1/orgs/{org}", format!("/api/v1/orgs/{o}"), None),
        row(Owner, "GET /api/v1/orgs/{org}/teams", format!("/api/v1/orgs/{o}/teams"), None),
        row(Owner, "POST /api/v1/orgs/{org}/teams", format!("/api/v1/orgs/{o}/teams"),
            Some(json!({"name": f, "permission": "admin", "includes_all_repositories": true}))),
        row(Owner, "GET /api/v1/teams/{id}", format!("/api/v1/teams/{t}"), None),
        row(Owner, "PUT /api/v1/teams/{id}/members/{username}",
            format!("/api/v1/teams/{t}/members/{m}"), None),
        row(Owner, "DELETE /api/v1/teams/{id}/members/{username}",
            format!("/api/v1/teams/{t}/members/{m}"), None),
        row(Me, "PUT /api/v1/user/blocks/{username}", format!("/api/v1/user/blocks/{m}"), None),
        row(Me, "DELETE /api/v1/user/blocks/{username}", format!("/api/v1/user/blocks/{m}"), None),
        row(Owner, "PUT /api/v1/orgs/{org}/blocks/{username}",
            format!("/api/v1/orgs/{o}/blocks/{m}"), None),
        row(Owner, "DELETE /api/v1/orgs/{org}/blocks/{username}",
            format!("/api/v1/orgs/{o}/blocks/{m}"), None),
        row(Me, "POST /api/v1/user/repos", "/api/v1/user/repos".into(),
            Some(json!({"name": f, "private": private}))),
        row(Owner, "POST /api/v1/orgs/{org}/repos", format!("/api/v1/orgs/{o}/repos"),
            Some(json!({"name": f, "private": private}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}", r.clone(), None),
        row(Owner, "PATCH /api/v1/repos/{owner}/{repo}", r.clone(),
            Some(json!({"description": "changed"}))),
        row(Owner, "PUT /api/v1/repos/{owner}/{repo}/collaborators/{collaborator}",
            format!("{r}/collaborators/{m}"), Some(json!({"permission": "read"}))),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/collaborators/{collaborator}",
            format!("{r}/collaborators/{m}"), None),
        row(Owner, "PUT /api/v1/teams/{id}/repos/{org}/{repo}",
            format!("/api/v1/teams/{t}/repos/{o}/{repo}"), None),
        row(Owner, "DELETE /api/v1/teams/{id}/repos/{org}/{repo}",
            format!("/api/v1/teams/{t}/repos/{o}/{repo}"), None),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/labels", format!("{r}/labels"),
            Some(json!({"name": f, "color": "#00aabb"}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/labels", format!("{r}/labels"), None),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/labels/{id}", format!("{r}/labels/{l}"), None),
        row(Owner, "PATCH /api/v1/repos/{owner}/{repo}/labels/{id}", format!("{r}/labels/{l}"),
            Some(json!({"description": "changed"}))),
        row(Owner, "POST /api/v1/orgs/{org}/labels", format!("/api/v1/orgs/{o}/labels"),
            Some(json!({"name": f, "color": "#00aabb"}))),
        row(Owner, "GET /api/v1/orgs/{org}/labels", format!("/api/v1/orgs/{o}/labels"), None),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/milestones", format!("{r}/milestones"), None),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/milestones", format!("{r}/milestones"),
            Some(json!({"title": f}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/milestones/{id}",
            format!("{r}/milestones/{ms}"), None),
        row(Owner, "PATCH /api/v1/repos/{owner}/{repo}/milestones/{id}",
            format!("{r}/milestones/{ms}"), Some(json!({"description": "changed"}))),
        row(Owner, "GET /api/v1/repos/issues/search",
            format!("/api/v1/repos/issues/search?q={}&state=all", w.mark), None),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/issues", format!("{r}/issues?state=all"), None),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues", format!("{r}/issues"),
            Some(json!({"title": f}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/issues/{index}", format!("{r}/issues/1"), None),
        row(Owner, "PATCH /api/v1/repos/{owner}/{repo}/issues/{index}", format!("{r}/issues/1"),
            Some(json!({"body": "changed"}))),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/deadline",
            format!("{r}/issues/1/deadline"), Some(json!({"due_date": "2030-01-01T00:00:00Z"}))),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/labels",
            format!("{r}/issues/1/labels"), Some(json!({"labels": [l]}))),
        row(Owner, "PUT /api/v1/repos/{owner}/{repo}/issues/{index}/labels",
            format!("{r}/issues/1/labels"), Some(json!({"labels": [l]}))),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/issues/{index}/labels",
            format!("{r}/issues/1/labels"), None),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/dependencies",
            format!("{r}/issues/1/dependencies"), link(2)),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/issues/{index}/dependencies",
            format!("{r}/issues/1/dependencies"), None),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/issues/{index}/dependencies",
            format!("{r}/issues/1/dependencies"), link(2)),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/blocks",
            format!("{r}/issues/2/blocks"), link(1)),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/issues/{index}/blocks",
            format!("{r}/issues/2/blocks"), None),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/issues/{index}/blocks",
            format!("{r}/issues/2/blocks"), link(1)),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/pulls", format!("{r}/pulls"),
            Some(json!({"title": f, "head": f, "base": "main"}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/pulls/{index}", format!("{r}/pulls/3"), None),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/pulls/{index}/requested_reviewers",
            format!("{r}/pulls/3/requested_reviewers"), Some(json!({"reviewers": [m]}))),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/pulls/{index}/reviews",
            format!("{r}/pulls/3/reviews"), Some(json!({"event": "COMMENT", "body": "ok"}))),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/pulls/{index}/merge",
            format!("{r}/pulls/3/merge"), Some(json!({"Do": "merge"}))),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/issues/{index}", format!("{r}/issues/4"), None),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/milestones/{id}",
            format!("{r}/milestones/{ms}"), None),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}/labels/{id}", format!("{r}/labels/{l}"), None),
        row(Owner, "DELETE /api/v1/repos/{owner}/{repo}", r.clone(), None),
    ];
    for d in DEPLOY {
        let (method, path) = d.split_once(' ').expect("METHOD /path");
        let concrete = path.replace("{uuid}", "nosuch").replace("{environment}", "production");
        let body = (method != "GET" && method != "DELETE").then(|| json!({"name": f}));
        rows.push(Row { who: Owner, method, route: format!("/api/v1{path}"), path: format!("/api/v1{concrete}"), body });
    }
    rows
}

#[test]
fn the_table_has_a_row_for_every_route() {
    let code: BTreeSet<(String, String)> =
        all_routes().iter().map(|r| (r.method.into(), r.path.into())).collect();
    let table: BTreeSet<(String, String)> =
        rows(&World::default()).into_iter().map(|r| (r.method.into(), r.route)).collect();
    let missing: Vec<_> = code.difference(&table).collect();
    assert!(missing.is_empty(), "routes without a public-only row: {missing:?}");
    let stale: Vec<_> = table.difference(&code).collect();
    assert!(stale.is_empty(), "rows for routes no function serves: {stale:?}");
}

/// The message a refusal of `route` carries (Gitea names the category).
fn refusal(route: &Route) -> String {
    let what = match route.guard {
        Guard::Scope(Category::Repository) => "repos",
        Guard::Scope(Category::Issue) => "issues",
        Guard::Scope(Category::Organization) => "orgs",
        Guard::Scope(_) => "users",
        Guard::Ability(_) => "resources",
    };
    format!("{LIMITED} {what}")
}

fn route_of(r: &Row) -> &'static Route {
    let all = all_routes();
    all.into_iter()
        .find(|x| x.method == r.method && x.path == r.route)
        .unwrap_or_else(|| panic!("no route {} {}", r.method, r.route))
}

/// Search lists the public side's issues and never a private one.
fn search_is_filtered(r: &Reply, what: &str) {
    assert_eq!(r.status, 200, "{what}: {:?}", r.body);
    let titles: Vec<&str> = r.body.as_array().expect("a list").iter()
        .filter_map(|i| i["title"].as_str()).collect();
    assert!(titles.iter().all(|t| !t.contains("secret")), "{what} lists private issues: {titles:?}");
    assert!(titles.iter().any(|t| t.contains("open")), "{what} misses public issues: {titles:?}");
}

async fn send(api: &Api, token: &str, r: &Row) -> Reply {
    api.call(r.method, &r.path, Auth::Bearer(token), r.body.clone()).await
}

/// Asserts every row is refused with its route's message, leaving no trace.
async fn all_refused(api: &Api, tokens: [&str; 3], rows: &[Row], world: &str) {
    for r in rows {
        let got = send(api, tokens[r.who as usize], r).await;
        let what = format!("{world} row {} {}", r.method, r.path);
        if r.route == "/api/v1/repos/issues/search" {
            search_is_filtered(&got, &what);
            continue;
        }
        let want = refusal(route_of(r));
        assert!(got.status == 403 && got.message().starts_with(&want),
            "{what}: want 403 {want:?}, got {} {:?}", got.status, got.body);
        // The refusal says nothing of the target.
        let keys: Vec<&String> = got.body.as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert!(keys.iter().all(|k| ["message", "url"].contains(&k.as_str())), "{what}: {:?}", got.body);
    }
}

async fn ok(api: &Api, token: &str, method: &str, path: &str, body: Value) -> Value {
    let r = api.call(method, path, Auth::Token(token), Some(body)).await;
    assert!(r.status < 300, "setup {method} {path}: {} {:?}", r.status, r.body);
    r.body
}

/// One organisation with a repository, a team reaching it, issues 1, 2
/// and 4, pull request 3, a label, a milestone and an organisation label.
struct Side {
    org: String,
    repo: String,
    team: i64,
    label: i64,
    milestone: i64,
}

async fn side(api: &Api, u: &TestUser, org_vis: &str, private: bool, mark: &str) -> Side {
    let word = if private || org_vis != "public" { "secret" } else { "open" };
    let org = api.new_org(u, "po", org_vis).await;
    let repo = api.new_repo(u, &format!("/api/v1/orgs/{org}/repos"), private).await;
    let r = format!("/api/v1/repos/{org}/{repo}");
    let team = json!({"name": unique("t"), "permission": "write", "units": ["repo.issues"]});
    let team = ok(api, &u.token, "POST", &format!("/api/v1/orgs/{org}/teams"), team).await["id"]
        .as_i64().expect("team id");
    ok(api, &u.token, "PUT", &format!("/api/v1/teams/{team}/repos/{org}/{repo}"), json!({})).await;
    for n in ["main", "blocker"] {
        ok(api, &u.token, "POST", &format!("{r}/issues"), json!({"title": format!("{mark} {word} {n}")})).await;
    }
    let pull = json!({"title": format!("{mark} {word} pull"), "head": "feature", "base": "main"});
    ok(api, &u.token, "POST", &format!("{r}/pulls"), pull).await;
    ok(api, &u.token, "POST", &format!("{r}/issues"), json!({"title": format!("{mark} {word} 4")})).await;
    let label = json!({"name": "bug", "color": "#ee0701"});
    let label = ok(api, &u.token, "POST", &format!("{r}/labels"), label).await["id"].as_i64().unwrap();
    let ms = ok(api, &u.token, "POST", &format!("{r}/milestones"), json!({"title": "v1"})).await;
    let org_label = json!({"name": "org-bug", "color": "#ee0701"});
    ok(api, &u.token, "POST", &format!("/api/v1/orgs/{org}/labels"), org_label).await;
    Side { org, repo, team, label, milestone: ms["id"].as_i64().unwrap() }
}

/// What the private side's routes read, as the unrestricted admin sees it.
fn watched(s: &Side) -> Vec<String> {
    let r = format!("/api/v1/repos/{}/{}", s.org, s.repo);
    let o = format!("/api/v1/orgs/{}", s.org);
    let mut v = vec![format!("{o}"), format!("{o}/teams"), format!("{o}/labels"), r.clone()];
    v.extend([format!("/api/v1/teams/{}", s.team), format!("{r}/issues?state=all")]);
    v.extend([format!("{r}/labels"), format!("{r}/milestones?state=all"), format!("{r}/pulls/3")]);
    v.extend((1..=4).map(|i| format!("{r}/issues/{i}")));
    v.extend([format!("{r}/issues/1/dependencies"), format!("{r}/issues/2/blocks")]);
    v
}

async fn snapshot(api: &Api, paths: &[String]) -> Vec<(u16, Value)> {
    let mut out = Vec::new();
    for p in paths {
        let r = api.call("GET", p, api.admin(), None).await;
        out.push((r.status, r.body));
    }
    out
}

/// A token of `user` with a known name (for the delete row).
async fn named_token(api: &Api, user: &TestUser) -> String {
    let name = unique("tk");
    let body = json!({"name": name, "scopes": ["read:user"]});
    let r = api.call("POST", &format!("/api/v1/users/{}/tokens", user.name),
        Auth::Basic(&user.name, &user.password), Some(body)).await;
    assert_eq!(r.status, 201, "token for {}: {:?}", user.name, r.body);
    name
}

#[tokio::test]
async fn public_only_tokens_touch_nothing_private() {
    let api = Api::from_env();
    let u = api.new_user("pou").await;
    let w = api.new_user("pow").await;
    let v = api.new_user_with("pov", json!({"visibility": "limited"})).await;
    let mark = unique("pm");
    // P: private org; Q: public org; M: public org holding a private repo.
    let p = side(&api, &u, "private", true, &mark).await;
    let q = side(&api, &u, "public", false, &mark).await;
    let m = side(&api, &u, "public", true, &mark).await;
    let ppub = api.new_repo(&u, &format!("/api/v1/orgs/{}/repos", p.org), false).await;
    let title = json!({"title": format!("{mark} secret in a public repo of a private org")});
    ok(&api, &u.token, "POST", &format!("/api/v1/repos/{}/{ppub}/issues", p.org), title).await;
    let mpub = api.new_repo(&u, &format!("/api/v1/orgs/{}/repos", m.org), false).await;
    let vrepo = api.new_repo(&v, "/api/v1/user/repos", false).await;
    let scopes = ["all", "root", "public-only"];
    let u_po = api.token(&u.name, &u.password, &scopes).await;
    let v_po = api.token(&v.name, &v.password, &scopes).await;
    let root_pw = std::env::var("BOOTSTRAP_ADMIN_PASSWORD").expect("BOOTSTRAP_ADMIN_PASSWORD");
    let admin_po = api.token("root", &root_pw, &["all", "public-only"]).await;
    let world = |s: &Side, person: &TestUser, private: bool, token: String| World {
        org: s.org.clone(), repo: s.repo.clone(), team: s.team, label: s.label,
        milestone: s.milestone, person: person.name.clone(), member: w.name.clone(), private,
        visibility: if private { "private" } else { "public" }, fresh: unique("pf"), token,
        mark: mark.clone(),
    };
    let private = world(&p, &v, true, named_token(&api, &v).await);
    let public = world(&q, &w, false, named_token(&api, &w).await);

    let mut paths: Vec<String> = [&p, &q, &m].into_iter().flat_map(watched).collect();
    paths.extend([format!("/api/v1/users/{}/tokens", v.name), format!("/api/v1/users/{}", v.name)]);
    let before = snapshot(&api, &paths).await;

    all_refused(&api, [&u_po, &v_po, &admin_po], &rows(&private), "private").await;
    // One private thing at a time, where the table's rows have several.
    use Who::*;
    let xf = unique("xf");
    let (qr, mr) = (format!("/api/v1/repos/{}/{}", q.org, q.repo), format!("/api/v1/repos/{}/{}", m.org, m.repo));
    let make = |private: bool| Some(json!({"name": xf, "private": private}));
    let extras = vec![
        row(Owner, "POST /api/v1/orgs/{org}/repos", format!("/api/v1/orgs/{}/repos", q.org), make(true)),
        row(Owner, "POST /api/v1/user/repos", "/api/v1/user/repos".into(), make(true)),
        row(Admin, "POST /api/v1/admin/users/{username}/repos",
            format!("/api/v1/admin/users/{}/repos", w.name), make(true)),
        row(Admin, "POST /api/v1/admin/users", "/api/v1/admin/users".into(),
            Some(json!({"username": format!("{xf}u"), "email": format!("{xf}@example.com"),
                "password": "long-enough-1", "visibility": "limited"}))),
        row(Owner, "POST /api/v1/orgs", "/api/v1/orgs".into(),
            Some(json!({"username": format!("{xf}o"), "visibility": "limited"}))),
        row(Owner, "PATCH /api/v1/repos/{owner}/{repo}", qr.clone(), Some(json!({"private": true}))),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}", format!("/api/v1/repos/{}/{ppub}", p.org), None),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}/issues", format!("{mr}/issues"), None),
        row(Owner, "GET /api/v1/repos/{owner}/{repo}", mr.clone(), None),
        row(Owner, "POST /api/v1/orgs/{org}/teams", format!("/api/v1/orgs/{}/teams", m.org),
            Some(json!({"name": xf, "permission": "admin", "includes_all_repositories": true}))),
        row(Owner, "POST /api/v1/orgs/{org}/labels", format!("/api/v1/orgs/{}/labels", m.org),
            Some(json!({"name": xf, "color": "#00aabb"}))),
        row(Owner, "PUT /api/v1/orgs/{org}/blocks/{username}",
            format!("/api/v1/orgs/{}/blocks/{}", m.org, w.name), None),
        row(Owner, "PUT /api/v1/teams/{id}/members/{username}",
            format!("/api/v1/teams/{}/members/{}", m.team, w.name), None),
        row(Owner, "PUT /api/v1/teams/{id}/repos/{org}/{repo}",
            format!("/api/v1/teams/{}/repos/{}/{}", q.team, m.org, m.repo), None),
        row(Owner, "GET /api/v1/users/{username}", format!("/api/v1/users/{}", v.name), None),
        row(Owner, "PUT /api/v1/repos/{owner}/{repo}/collaborators/{collaborator}",
            format!("{qr}/collaborators/{}", v.name), Some(json!({"permission": "read"}))),
        // A public issue may not be linked to a private one, either way.
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/dependencies",
            format!("{qr}/issues/1/dependencies"), Some(json!({"owner": p.org, "repo": p.repo, "index": 1}))),
        row(Owner, "POST /api/v1/repos/{owner}/{repo}/issues/{index}/blocks",
            format!("{qr}/issues/2/blocks"), Some(json!({"owner": m.org, "repo": m.repo, "index": 1}))),
    ];
    all_refused(&api, [&u_po, &u_po, &admin_po], &extras, "single-cause").await;

    // Nothing the refused writes aimed at changed or came to exist.
    let after = snapshot(&api, &paths).await;
    for ((path, b), a) in paths.iter().zip(&before).zip(&after) {
        assert_eq!(a, b, "GET {path} changed after refused writes");
    }
    for name in [&private.fresh, &xf] {
        for owner in [&p.org, &q.org, &m.org, &u.name, &v.name, &w.name] {
            let r = api.call("GET", &format!("/api/v1/repos/{owner}/{name}"), api.admin(), None).await;
            assert_eq!(r.status, 404, "repository {owner}/{name} was created: {:?}", r.body);
        }
        for account in [format!("{name}u"), format!("{name}o")] {
            let r = api.call("GET", &format!("/api/v1/users/{account}"), api.admin(), None).await;
            assert_eq!(r.status, 404, "account {account} was created: {:?}", r.body);
        }
    }
    // W joined no team and became no collaborator; nobody blocked W.
    let w_auth = Auth::Token(&w.token);
    for repo in [format!("{}/{}", p.org, p.repo), format!("{}/{}", m.org, m.repo)] {
        let r = api.call("GET", &format!("/api/v1/repos/{repo}/issues"), w_auth, None).await;
        assert_eq!(r.status, 404, "{} gained access to {repo}: {:?}", w.name, r.body);
    }
    for repo in [format!("{}/{mpub}", m.org), format!("{}/{vrepo}", v.name)] {
        let r = api.call("POST", &format!("/api/v1/repos/{repo}/issues"), w_auth,
            Some(json!({"title": "not blocked"}))).await;
        assert_eq!(r.status, 201, "{} was blocked in {repo}: {:?}", w.name, r.body);
    }

    // The same routes on public things are answered, not refused.
    let allowed = [format!("/api/v1/orgs/{}", m.org), format!("/api/v1/orgs/{}/teams", m.org)];
    for path in allowed {
        let r = api.call("GET", &path, Auth::Bearer(&u_po), None).await;
        assert_eq!(r.status, 200, "GET {path} of a public org: {:?}", r.body);
    }
    let tokens = [&u_po, &u_po, &admin_po];
    for r in rows(&public) {
        let got = send(&api, tokens[r.who as usize], &r).await;
        let what = format!("public row {} {}", r.method, r.path);
        if r.route == "/api/v1/repos/issues/search" {
            search_is_filtered(&got, &what);
        } else if matches!(route_of(&r).guard, Guard::Ability(_)) {
            let want = refusal(route_of(&r));
            assert!(got.status == 403 && got.message().starts_with(&want), "{what}: {:?}", got.body);
        } else {
            assert!((200..300).contains(&got.status), "{what}: {} {:?}", got.status, got.body);
        }
    }
}
