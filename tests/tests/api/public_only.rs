//! `public-only` tokens never read or change anything private. [`TABLE`]
//! has a row for every route of every function; each row runs against a
//! private world (403 naming the route's scope, nothing stored changes) and
//! against a public one (answered, not refused), so the check is neither
//! missing nor refusing everything. [`SINGLE`] refuses one private thing at
//! a time where a table row meets several.

use std::collections::{BTreeSet, HashMap};

use api_tests::{Api, Auth, Reply, TestUser, unique};
use serde_json::{Value, json};
use shared::auth::scope::Category;
use shared::http::{Guard, Route};

mod tables;

use tables::{DEPLOY, SINGLE, TABLE};

pub(crate) fn all_routes() -> impl Iterator<Item = &'static Route> {
    let a = [accounts::ROUTES, repos::ROUTES, milestones::ROUTES];
    let b = [issues::ROUTES, issue_search::ROUTES, app_create::ROUTES];
    let c = [app_crud::ROUTES, infra::ROUTES, hooks::ROUTES];
    a.into_iter().chain(b).chain(c).flatten()
}

/// The names one world's rows use: `person` is a user whose own account
/// is the target (limited in the private world), `member` a public user
/// added, blocked or asked to review; `fresh` names what rows create.
#[derive(Default)]
pub(crate) struct World {
    pub(crate) org: String,
    pub(crate) repo: String,
    pub(crate) team: i64,
    pub(crate) label: i64,
    pub(crate) milestone: i64,
    /// A comment on issue 1.
    pub(crate) comment: i64,
    /// A tracked time on issue 1.
    pub(crate) time: i64,
    /// Hooks of the repository, the organisation, the user whose token
    /// is `me`, and the site.
    pub(crate) repo_hook: i64,
    pub(crate) org_hook: i64,
    pub(crate) user_hook: i64,
    pub(crate) site_hook: i64,
    /// A delivery of the repository's, the organisation's and the user's
    /// hook (see [`delivered`]), for the rows that send one again.
    pub(crate) repo_delivery: String,
    pub(crate) org_delivery: String,
    pub(crate) user_delivery: String,
    pub(crate) person: String,
    /// The person's password: tokens are listed with it.
    pub(crate) password: String,
    pub(crate) member: String,
    pub(crate) visibility: &'static str,
    pub(crate) fresh: String,
    pub(crate) token: String,
    pub(crate) mark: String,
}

/// A delivery id no hook has.
const NO_DELIVERY: &str = "00000000-0000-4000-8000-000000000000";

/// The concrete path of `route` in `w`: issue 1 (2 for blocks, 3 is the
/// pull request, 4 is deleted); a user after `users/` is `person`.
fn fill(method: &str, route: &str, w: &World) -> String {
    let (mut path, mut prev) = (String::new(), "");
    for seg in route.split('/').skip(1) {
        let v = match (prev, seg) {
            (_, "{owner}" | "{org}") => w.org.clone(),
            (_, "{repo}") => w.repo.clone(),
            ("users", "{username}") => w.person.clone(),
            (_, "{username}" | "{collaborator}") => w.member.clone(),
            ("teams", "{id}") => w.team.to_string(),
            ("labels", "{id}") => w.label.to_string(),
            ("milestones", "{id}") => w.milestone.to_string(),
            ("tokens", "{id}") => w.token.clone(),
            ("comments", "{id}") => w.comment.to_string(),
            ("times", "{id}") => w.time.to_string(),
            ("hooks", "{id}") if route.starts_with("/repos/") => w.repo_hook.to_string(),
            ("hooks", "{id}") if route.starts_with("/orgs/") => w.org_hook.to_string(),
            ("hooks", "{id}") if route.starts_with("/user/") => w.user_hook.to_string(),
            ("hooks", "{id}") => w.site_hook.to_string(),
            ("deliveries", "{delivery}") => {
                let d = if route.starts_with("/repos/") {
                    &w.repo_delivery
                } else if route.starts_with("/orgs/") {
                    &w.org_delivery
                } else {
                    &w.user_delivery
                };
                // A world whose rows are all refused needs none.
                (if d.is_empty() { NO_DELIVERY } else { d }).to_string()
            }
            ("pulls", "{index}") => "3".into(),
            (_, "{topic}") => "rust".into(),
            (_, "{ref}") => "heads".into(),
            ("{ref}", "{name}") => "main".into(),
            (_, "{index}") if route.ends_with("/blocks") => "2".into(),
            (_, "{index}") if route.contains("/times") => "1".into(),
            (_, "{index}") if method == "DELETE" && route.ends_with('}') => "4".into(),
            (_, "{index}") => "1".into(),
            (_, "{environment}") => "production".into(),
            (_, s) => s
                .replace("{uuid}", "nosuch")
                .replace("{runner_uuid}", "nosuch")
                .replace("{env_uuid}", "nosuch"),
        };
        (path, prev) = (format!("{path}/{v}"), seg);
    }
    if route == "/repos/issues/search" {
        path = format!("{path}?q={}&state=all", w.mark);
    }
    path
}

fn body(key: &str, w: &World) -> Option<Value> {
    let (f, vis) = (&w.fresh, w.visibility);
    let link = |index: i64| json!({"owner": w.org, "repo": w.repo, "index": index});
    Some(match key {
        "" => return None,
        "token" => json!({"name": f, "scopes": ["read:user"]}),
        "user" => json!({"username": format!("{f}u"), "email": format!("{f}@example.com"),
            "password": "long-enough-1", "visibility": vis}),
        "org" => json!({"username": format!("{f}o"), "visibility": vis}),
        "repo" => json!({"name": f, "private": vis != "public"}),
        "private" => json!({"private": true}),
        "team" => json!({"name": f, "permission": "admin", "includes_all_repositories": true}),
        "changed" => json!({"description": "changed", "body": "changed"}),
        "empty" => json!({}),
        "label" => json!({"name": f, "color": "#00aabb"}),
        "labels" => json!({"labels": [w.label]}),
        "milestone" | "issue" => json!({"title": f}),
        "deadline" => json!({"due_date": "2030-01-01T00:00:00Z"}),
        "link1" | "link2" => link(key[4..].parse().unwrap()),
        "pull" => json!({"title": f, "head": f, "base": "main"}),
        "reviewers" => json!({"reviewers": [w.member]}),
        "review" => json!({"event": "COMMENT", "body": "ok"}),
        "merge" => json!({"Do": "merge"}),
        "comment" => json!({"body": "a comment"}),
        "lock" => json!({"lock_reason": "Resolved"}),
        "reaction" => json!({"content": "heart"}),
        "time" => json!({"time": 60}),
        "topics" => json!({"topics": ["tracker"]}),
        "ref" => json!({"ref": "refs/heads/main", "sha": "a".repeat(40)}),
        "hook" => hook_body(),
        "hookedit" => json!({"active": false}),
        other => panic!("no body {other:?}"),
    })
}

/// A hook as the rows create it (the test instance accepts loopback
/// targets; what is sent to it finds nothing listening).
pub(crate) fn hook_body() -> Value {
    json!({"type": "gitea", "events": ["issues"], "active": true,
        "config": {"url": "http://127.0.0.1:9/po", "content_type": "json"}})
}

/// Makes a hook under `path` (under /api/v1) with `auth`; its id.
async fn new_hook(api: &Api, auth: Auth<'_>, path: &str) -> i64 {
    let path = format!("/api/v1{path}");
    let r = api.call("POST", &path, auth, Some(hook_body())).await;
    assert_eq!(r.status, 201, "setup POST {path}: {:?}", r.body);
    r.body["id"].as_i64().unwrap()
}

/// One request: the token (index into owner, me, admin), method, route
/// template, concrete path, body, and the status when refused.
pub(crate) struct Row(
    pub usize,
    pub String,
    pub String,
    pub String,
    pub Option<Value>,
    pub u16,
);

/// Parses a table whose body key is column `at` (a last column of digits
/// is the status when refused, else 403); `path` makes the concrete path.
fn parse(table: &str, w: &World, at: usize, path: impl Fn(&[&str]) -> String) -> Vec<Row> {
    let who = |w: &str| ["owner", "me", "admin"].iter().position(|x| *x == w);
    let row = |mut c: Vec<&str>| {
        let status = c.last().and_then(|s| s.parse().ok());
        c.truncate(c.len() - status.is_some() as usize);
        let (key, route) = (c.get(at).copied().unwrap_or(""), format!("/api/v1{}", c[2]));
        let (who, path, body) = (who(c[0]).expect("who"), path(&c), body(key, w));
        let (method, path) = (c[1].to_string(), format!("/api/v1{path}"));
        Row(who, method, route, path, body, status.unwrap_or(403))
    };
    let rows = table.lines().map(|l| l.split_whitespace().collect());
    rows.filter(|c: &Vec<_>| !c.is_empty()).map(row).collect()
}

pub(crate) fn rows(w: &World) -> Vec<Row> {
    let deploy = DEPLOY.split_whitespace().collect::<Vec<_>>();
    let pair = |c: &[&str]| format!("owner {} {}\n", c[0], c[1]);
    let table = TABLE.to_string() + &deploy.chunks(2).map(pair).collect::<String>();
    parse(&table, w, 3, |c| fill(c[1], c[2], w))
}

#[test]
fn the_table_has_a_row_for_every_route() {
    // Open routes (version, settings, health) read nothing of anyone's:
    // tests/tests/api/meta.rs covers them, public-only tokens included.
    // Runner routes refuse every user token (deploy_runner.rs).
    let code: BTreeSet<(&str, String)> = all_routes()
        .filter(|r| r.guard != Guard::Open && r.guard != Guard::Runner)
        .map(|r| (r.method, r.path.into()))
        .collect();
    let rows = rows(&World::default());
    let table: BTreeSet<_> = rows.iter().map(|r| (r.1.as_str(), r.2.clone())).collect();
    let missing: Vec<_> = code.difference(&table).collect();
    assert!(missing.is_empty(), "routes without a row: {missing:?}");
    let stale: Vec<_> = table.difference(&code).collect();
    assert!(stale.is_empty(), "rows no function serves: {stale:?}");
}

/// The route's guard, and how its refusal begins (Gitea names the scope
/// category; deploy routes name their resources).
fn refusal(method: &str, path: &str) -> (Guard, String) {
    let is = |x: &&Route| x.method == method && x.path == path;
    let guard = all_routes().find(is).expect("a route").guard;
    let what = match (guard, guard.category()) {
        (g, _) if g.is_ability() => "resources",
        (_, Some(Category::Repository)) => "repos",
        (_, Some(Category::Issue)) => "issues",
        (_, Some(Category::Organization)) => "orgs",
        (_, _) => "users",
    };
    (guard, format!("token scope is limited to public {what}"))
}

/// Lists across owners: answered for every token, without what it may
/// not see (`hidden`).
const LISTS: [&str; 2] = ["/api/v1/user/repos", "/api/v1/repos/search"];

/// Sends every row: search lists public issues; other rows are refused
/// when `refused` (deploy routes always), else answered 2xx. No answer
/// shows anything in `hidden`.
async fn run(api: &Api, tokens: [&str; 3], rows: Vec<Row>, refused: bool, hidden: &[&str]) {
    for Row(who, method, template, path, body, status) in rows {
        let got = api.call(&method, &path, Auth::Bearer(tokens[who]), body);
        let got = got.await;
        let what = format!("row {method} {path}: {} {:?}", got.status, got.body);
        let (guard, refusal) = refusal(&method, &template);
        let text = got.body.to_string();
        if let Some(h) = hidden.iter().find(|h| text.contains(*h)) {
            panic!("{what} shows the private {h:?}");
        } else if template.ends_with("/repos/issues/search") {
            assert!(got.status == 200 && text.contains(" open "), "{what}");
        } else if method == "GET" && LISTS.contains(&template.as_str()) {
            // Lists across owners leave out what the token may not see.
            assert_eq!(got.status, 200, "{what}");
        } else if refused && status != 403 {
            assert_eq!(got.status, status, "{what}");
        } else if refused || guard.is_ability() || template.starts_with("/api/v1/admin/hooks") {
            let refused = got.status == 403 && got.message().starts_with(&refusal);
            assert!(refused, "{what}: want 403 {refusal:?}");
            // The refusal tells nothing about the target.
            assert!(got.body.as_object().is_some_and(|o| o.len() <= 3), "{what}");
            assert!(got.body.get("id").is_none(), "{what}");
        } else if template.contains("/tokens") {
            // Tokens are managed with a password only: a token gets 401.
            assert_eq!(got.status, 401, "{what}");
        } else {
            assert!((200..300).contains(&got.status), "{what}");
        }
    }
}

async fn admin_get(api: &Api, path: String) -> Reply {
    let path = format!("/api/v1{path}");
    api.call("GET", &path, api.admin(), None).await
}

/// A setup request with an unrestricted token (`path` under /api/v1).
pub(crate) async fn ok(api: &Api, token: &str, method: &str, path: String, body: Value) -> Value {
    let (path, auth) = (format!("/api/v1{path}"), Auth::Token(token));
    let r = api.call(method, &path, auth, Some(body)).await;
    assert!(r.status < 300, "setup {method} {path}: {r:?}");
    r.body
}

/// An organisation with a repository, a team reaching it, issues 1, 2 and
/// 4, pull request 3, a label, a milestone, an organisation label and a
/// comment on issue 1.
pub(crate) async fn side(api: &Api, u: &TestUser, org_vis: &str, private: bool, w: &mut World) {
    let word = ["secret", "open"][(org_vis == "public" && !private) as usize];
    w.org = api.new_org(u, "po", org_vis).await;
    let (o, t) = (format!("/orgs/{}", w.org), u.token.as_str());
    w.repo = api.new_repo(u, &format!("/api/v1{o}/repos"), private).await;
    let r = format!("/repos/{}/{}", w.org, w.repo);
    // Before the issues: their opening is delivered to both (see `delivered`).
    w.repo_hook = new_hook(api, Auth::Token(t), &format!("{r}/hooks")).await;
    w.org_hook = new_hook(api, Auth::Token(t), &format!("{o}/hooks")).await;
    let team = json!({"name": "devs", "permission": "write", "units": ["repo.issues"]});
    let team = ok(api, t, "POST", format!("{o}/teams"), team).await;
    w.team = team["id"].as_i64().unwrap();
    ok(api, t, "PUT", format!("/teams/{}{r}", w.team), json!({})).await;
    for n in ["main", "blocker", "pull", "4"] {
        let kind = if n == "pull" { "pulls" } else { "issues" };
        let issue = json!({"title": format!("{} {word} {n}", w.mark), "head": "f", "base": "main"});
        ok(api, t, "POST", format!("{r}/{kind}"), issue).await;
    }
    let label = json!({"name": "bug", "color": "#ee0701"});
    let made = ok(api, t, "POST", format!("{r}/labels"), label.clone()).await;
    w.label = made["id"].as_i64().unwrap();
    let ms = json!({"title": "v1"});
    let made = ok(api, t, "POST", format!("{r}/milestones"), ms).await;
    w.milestone = made["id"].as_i64().unwrap();
    ok(api, t, "POST", format!("{o}/labels"), label).await;
    let text = json!({"body": format!("{} {word} comment", w.mark)});
    let made = ok(api, t, "POST", format!("{r}/issues/1/comments"), text).await;
    w.comment = made["id"].as_i64().unwrap();
    let made = ok(
        api,
        t,
        "POST",
        format!("{r}/issues/1/times"),
        json!({"time": 60}),
    )
    .await;
    w.time = made["id"].as_i64().unwrap();
}

/// The newest delivery of the hook at `hook` (under /api/v1), once the
/// stream consumer has made what was written so far into deliveries.
pub(crate) async fn newest_delivery(api: &Api, auth: Auth<'_>, hook: &str) -> String {
    api_tests::settle().await;
    let path = format!("/api/v1{hook}/deliveries");
    for _ in 0..20 {
        let r = api.call("GET", &path, auth, None).await;
        assert_eq!(r.status, 200, "setup GET {path}: {:?}", r.body);
        if let Some(id) = r.body[0]["id"].as_str() {
            return id.to_string();
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!("no delivery of {hook}");
}

/// The deliveries of `side`'s issues to the repository's and the
/// organisation's hooks (`u` owns both), which rows send again.
pub(crate) async fn delivered(api: &Api, u: &TestUser, w: &mut World) {
    let t = Auth::Token(&u.token);
    let repo_hook = format!("/repos/{}/{}/hooks/{}", w.org, w.repo, w.repo_hook);
    w.repo_delivery = newest_delivery(api, t, &repo_hook).await;
    let org_hook = format!("/orgs/{}/hooks/{}", w.org, w.org_hook);
    w.org_delivery = newest_delivery(api, t, &org_hook).await;
}

/// What the routes read on these sides, as the unrestricted admin sees it.
pub(crate) async fn snapshot(api: &Api, worlds: &[&World]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for w in worlds {
        let o = format!("/orgs/{}", w.org);
        let r = format!("/repos/{}/{}", w.org, w.repo);
        let mut paths = vec![format!("/teams/{}", w.team)];
        paths.extend(["", "/teams", "/labels", "/hooks"].map(|s| format!("{o}{s}")));
        // The repository itself, then what lies under it.
        let under = " /labels /hooks /milestones?state=all /issues?state=all /pulls/3 /issues/1";
        paths.extend(under.split(' ').map(|s| format!("{r}{s}")));
        let issues = ["2", "3", "4", "1/dependencies", "1/blocks", "2/blocks"];
        paths.extend(issues.map(|s| format!("{r}/issues/{s}")));
        let comment = format!("comments/{}", w.comment);
        let reactions = format!("{comment}/reactions");
        let comments = [
            "comments",
            "1/comments",
            &comment,
            "1/reactions",
            &reactions,
        ];
        paths.extend(comments.map(|s| format!("{r}/issues/{s}")));
        for p in paths {
            let got = admin_get(api, p.clone()).await;
            assert_eq!(got.status, 200, "GET {p}: {:?}", got.body);
            out.push((p, got.body));
        }
        // Tokens are listed with the owner's password only.
        let p = format!("/api/v1/users/{}/tokens", w.person);
        let got = api
            .call("GET", &p, Auth::Basic(&w.person, &w.password), None)
            .await;
        assert_eq!(got.status, 200, "GET {p}: {:?}", got.body);
        out.push((p, got.body));
    }
    out
}

#[tokio::test]
async fn public_only_tokens_touch_nothing_private() {
    let api = Api::from_env();
    let (u, w) = (api.new_user("pou").await, api.new_user("pow").await);
    let v = api.new_user_with("pov", json!({"visibility": "limited"}));
    let (v, mark) = (v.await, unique("pm"));
    let token_of = async |user: &TestUser| {
        // Tokens are managed with a password only (not even an admin's token).
        let path = format!("/api/v1/users/{}/tokens", user.name);
        let tokens = api
            .call("GET", &path, Auth::Basic(&user.name, &user.password), None)
            .await;
        tokens.body[0]["name"].as_str().unwrap().to_string()
    };
    let world = async |person: &TestUser, private: bool| World {
        person: person.name.clone(),
        password: person.password.clone(),
        member: w.name.clone(),
        visibility: if private { "private" } else { "public" },
        fresh: unique("pf"),
        token: token_of(person).await,
        mark: mark.clone(),
        ..World::default()
    };
    // P: private org; Q: public org; M: public org with a private repo.
    let mut p = world(&v, true).await;
    let mut q = world(&w, false).await;
    let mut m = world(&w, true).await;
    side(&api, &u, "private", true, &mut p).await;
    side(&api, &u, "public", false, &mut q).await;
    side(&api, &u, "public", true, &mut m).await;
    let org_repos = |o: &str| format!("/api/v1/orgs/{o}/repos");
    let ppub = api.new_repo(&u, &org_repos(&p.org), false).await;
    let title = json!({"title": format!("{mark} secret, public repo of a private org")});
    let path = format!("/repos/{}/{ppub}/issues", p.org);
    ok(&api, &u.token, "POST", path, title).await;
    let mpub = api.new_repo(&u, &org_repos(&m.org), false).await;
    let vrepo = api.new_repo(&v, "/api/v1/user/repos", false).await;
    let scopes = ["all", "root", "public-only"];
    let u_po = api.token(&u.name, &u.password, &scopes).await;
    let v_po = api.token(&v.name, &v.password, &scopes).await;
    let root_pw = std::env::var("BOOTSTRAP_ADMIN_PASSWORD").expect("BOOTSTRAP_ADMIN_PASSWORD");
    let admin_po = api.token("root", &root_pw, &["all", "public-only"]).await;
    // Public issues linked to private ones: Q#1 needs P#1, P#2 needs Q#2.
    let link = |w: &World, i: i64| json!({"owner": w.org, "repo": w.repo, "index": i});
    let deps = |w: &World, i: i64| format!("/repos/{}/{}/issues/{i}/dependencies", w.org, w.repo);
    ok(&api, &u.token, "POST", deps(&q, 1), link(&p, 1)).await;
    ok(&api, &u.token, "POST", deps(&p, 2), link(&q, 2)).await;
    // `me` is V in the private world, U in the public one.
    p.user_hook = new_hook(&api, Auth::Token(&v.token), "/user/hooks").await;
    q.user_hook = new_hook(&api, Auth::Token(&u.token), "/user/hooks").await;
    for world in [&mut p, &mut q] {
        world.site_hook = new_hook(&api, api.admin(), "/admin/hooks").await;
    }
    // Deliveries the public world's rows send again; U's own are of an
    // issue in a repository of U's.
    delivered(&api, &u, &mut q).await;
    let mine = api.new_repo(&u, "/api/v1/user/repos", false).await;
    let issue = json!({"title": "delivered to the user's hook"});
    ok(
        &api,
        &u.token,
        "POST",
        format!("/repos/{}/{mine}/issues", u.name),
        issue,
    )
    .await;
    let hook = format!("/user/hooks/{}", q.user_hook);
    q.user_delivery = newest_delivery(&api, Auth::Token(&u.token), &hook).await;
    let before = snapshot(&api, &[&p, &q, &m]).await;
    // There are private issues to leave out: in search, and linked.
    let search = format!("/repos/issues/search?q={mark}&state=all");
    api_tests::settle().await;
    for path in [search, deps(&q, 1)] {
        let all = admin_get(&api, path).await;
        assert!(all.body.to_string().contains("secret"), "{:?}", all.body);
    }
    let secret = ["secret"];

    run(&api, [&u_po, &v_po, &admin_po], rows(&p), true, &secret).await;
    // SINGLE's `$` names, in order.
    let names = "$P $PPUB $Q $QR $M $MR $V $W $QT $MT $MH".split(' ');
    let (qt, mt, mh) = (
        q.team.to_string(),
        m.team.to_string(),
        m.org_hook.to_string(),
    );
    let values = [&p.org, &ppub, &q.org, &q.repo, &m.org, &m.repo];
    let values = values.into_iter().chain([&v.name, &w.name, &qt, &mt, &mh]);
    let vars: HashMap<&str, &String> = names.zip(values).collect();
    let var = |s: &str| vars.get(s).map_or(s.to_string(), |v| v.to_string());
    let path = |c: &[&str]| c[3].split('/').map(var).collect::<Vec<_>>().join("/");
    let mut x = world(&v, true).await;
    (x.org, x.repo, x.visibility) = (p.org.clone(), p.repo.clone(), "limited");
    let single = parse(SINGLE, &x, 4, path);
    run(&api, [&u_po, &u_po, &admin_po], single, true, &secret).await;

    // Nothing the refused writes aimed at changed or came to exist.
    let after = snapshot(&api, &[&p, &q, &m]).await;
    for ((path, b), (_, a)) in before.iter().zip(&after) {
        assert_eq!(a, b, "GET {path} changed after refused writes");
    }
    for name in [&p.fresh, &x.fresh] {
        for owner in [&p.org, &q.org, &m.org, &u.name, &v.name, &w.name] {
            let r = admin_get(&api, format!("/repos/{owner}/{name}")).await;
            assert_eq!(r.status, 404, "repository {owner}/{name} was created");
        }
        for account in [format!("{name}u"), format!("{name}o")] {
            let r = admin_get(&api, format!("/users/{account}")).await;
            assert_eq!(r.status, 404, "account {account} was created");
        }
    }
    // W joined no team, became no collaborator, and nobody blocked W.
    for (owner, repo) in [(&p.org, &p.repo), (&m.org, &m.repo)] {
        let path = format!("/api/v1/repos/{owner}/{repo}/issues");
        let r = api.call("GET", &path, Auth::Token(&w.token), None).await;
        assert_eq!(r.status, 404, "W reaches {path}: {:?}", r.body);
    }
    for (owner, repo) in [(&m.org, &mpub), (&v.name, &vrepo)] {
        let path = format!("/repos/{owner}/{repo}/issues");
        ok(&api, &w.token, "POST", path, json!({"title": "hi"})).await;
    }
    // A public org holding a private repository can still be read.
    for s in ["", "/teams"] {
        let path = format!("/api/v1/orgs/{}{s}", m.org);
        let r = api.call("GET", &path, Auth::Bearer(&u_po), None).await;
        assert_eq!(r.status, 200, "GET {path}: {:?}", r.body);
    }
    let hidden = ["secret", &p.org, &p.repo, &m.repo, &ppub];
    run(&api, [&u_po, &u_po, &admin_po], rows(&q), false, &hidden).await;
}
