//! What `tea` (Gitea's CLI) asks beyond the core routes: repository
//! topics, branch heads and pull requests' `base.repo`/`head.repo`
//! (`tea pulls <n>`), the repository and organisation lists
//! (`tea repos`, `tea repos search`, `tea orgs`) and the assignees
//! (`tea issues create`).

use api_tests::{Api, Auth, items_under, unique};
use serde_json::{Value, json};

async fn put(api: &Api, token: &str, path: &str, body: Option<Value>) -> api_tests::Reply {
    api.call("PUT", path, Auth::Token(token), body).await
}

#[tokio::test]
async fn topics_follow_gitea_s_rules() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("topo", false).await;
    let reader = api.new_user("topr").await;
    let name = repo.rsplit('/').next().unwrap().to_string();
    api.add_collaborator(&owner, &owner.name, &name, &reader.name, "read")
        .await;
    let t = owner.token.as_str();
    let topics = format!("{repo}/topics");

    let r = api.call("GET", &topics, Auth::Token(t), None).await;
    assert_eq!((r.status, &r.body), (200, &json!({"topics": []})));
    assert_eq!(r.total(), Some(0));

    // Invalid ones are named, and nothing changes.
    let bad = json!({"topics": ["ok", "Not OK", "_x", "a".repeat(36)]});
    let r = put(&api, t, &topics, Some(bad)).await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert_eq!(r.body["message"], "invalid topics");
    let named = json!(["not ok", "_x", "a".repeat(36)]);
    assert_eq!(r.body["invalidTopics"], named);
    let many: Vec<String> = (0..26).map(|i| format!("t{i:02}")).collect();
    let r = put(&api, t, &topics, Some(json!({ "topics": many }))).await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    for wrong in [json!({"topics": "rust"}), json!({"topics": [1]}), json!({})] {
        let r = put(&api, t, &topics, Some(wrong.clone())).await;
        assert!(matches!(r.status, 400 | 422), "{wrong}: {:?}", r.body);
    }
    let r = api.call("GET", &topics, Auth::Token(t), None).await;
    assert_eq!(r.body, json!({"topics": []}));

    // Trimmed, lower-cased, merged and listed by name.
    let set = json!({"topics": [" Rust ", "api", "rust", "", "web.dev"]});
    let r = put(&api, t, &topics, Some(set)).await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    let r = api.call("GET", &topics, Auth::Token(t), None).await;
    assert_eq!(r.body, json!({"topics": ["api", "rust", "web.dev"]}));
    assert_eq!(r.total(), Some(3));
    let r = api
        .call(
            "GET",
            &format!("{topics}?limit=1&page=2"),
            Auth::Token(t),
            None,
        )
        .await;
    assert_eq!(
        (r.body.clone(), r.total()),
        (json!({"topics": ["rust"]}), Some(3))
    );
    let r = api.call("GET", &repo, Auth::Token(t), None).await;
    assert_eq!(r.body["topics"], json!(["api", "rust", "web.dev"]));

    // One at a time; the store keeps a string set.
    assert_eq!(
        put(&api, t, &format!("{topics}/Zeta"), None).await.status,
        204
    );
    assert_eq!(
        put(&api, t, &format!("{topics}/zeta"), None).await.status,
        204
    );
    let r = put(&api, t, &format!("{topics}/bad_one"), None).await;
    assert_eq!(r.status, 422);
    assert_eq!(r.body["invalidTopics"], json!(["bad_one"]));
    let del = |topic: &str| {
        let (api, path) = (&api, format!("{topics}/{topic}"));
        async move { api.call("DELETE", &path, Auth::Token(t), None).await }
    };
    assert_eq!(del("api").await.status, 204);
    assert_eq!(del("api").await.status, 404, "no longer carried");
    let stored = items_under(&format!("OWNER#{}", owner.name), "REPO#").await;
    let ss = stored[0]["topics"].as_ss().expect("a string set");
    let mut ss = ss.clone();
    ss.sort();
    assert_eq!(ss, ["rust", "web.dev", "zeta"]);

    // Only admins write; readers read.
    let r = api
        .call("GET", &topics, Auth::Token(&reader.token), None)
        .await;
    assert_eq!(r.status, 200);
    let r = put(&api, &reader.token, &format!("{topics}/x"), None).await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = put(&api, &reader.token, &topics, Some(json!({"topics": []}))).await;
    assert_eq!(r.status, 403, "{:?}", r.body);

    // At most 25, one by one too; an empty list removes them all.
    let r = put(&api, t, &topics, Some(json!({ "topics": many[..25] }))).await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    let r = put(&api, t, &format!("{topics}/one-more"), None).await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert_eq!(
        put(&api, t, &format!("{topics}/t00"), None).await.status,
        204
    );
    let r = put(&api, t, &topics, Some(json!({"topics": []}))).await;
    assert_eq!(r.status, 204);
    let r = api.call("GET", &repo, Auth::Token(t), None).await;
    assert_eq!(r.body["topics"], json!([]));
}

#[tokio::test]
async fn pulls_carry_their_repository_and_reported_heads() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("prh", false).await;
    let reader = api.new_user("prhr").await;
    let name = repo.rsplit('/').next().unwrap().to_string();
    api.add_collaborator(&owner, &owner.name, &name, &reader.name, "read")
        .await;
    let t = Auth::Token(&owner.token);
    let branch = unique("feat");
    let pr = json!({"title": "a change", "head": branch, "base": "main"});
    let r = api
        .call("POST", &format!("{repo}/pulls"), t, Some(pr))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let n = r.body["number"].as_i64().unwrap();
    let full_name = format!("{}/{name}", owner.name);
    for end in ["base", "head"] {
        assert_eq!(r.body[end]["repo"]["full_name"], full_name.as_str());
        assert_eq!(r.body[end]["repo"]["owner"]["login"], owner.name.as_str());
        assert_eq!(r.body[end]["sha"], "");
    }
    let pull = format!("{repo}/pulls/{n}");
    let read = api
        .call("GET", &pull, Auth::Token(&reader.token), None)
        .await;
    assert_eq!(read.body["base"]["repo"]["name"], name.as_str());
    assert_eq!(
        read.body["head"]["repo"]["permissions"],
        json!({"admin": false, "push": false, "pull": true}),
        "the repository as the caller sees it"
    );

    // Nothing reported yet: no ref, as Gitea answers an unknown one.
    let refs = format!("{repo}/git/refs");
    let r = api.call("GET", &format!("{refs}/heads"), t, None).await;
    assert_eq!(r.status, 404, "{:?}", r.body);
    let r = api.call("GET", &refs, t, None).await;
    assert_eq!((r.status, r.body.clone()), (200, json!([])));

    // CI reports the head: writers only, checked names and commits.
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let head = format!("refs/heads/{branch}");
    let body = json!({"ref": head, "sha": sha.to_uppercase()});
    let by_reader = Auth::Token(&reader.token);
    let r = api.call("POST", &refs, by_reader, Some(body.clone())).await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    for wrong in [
        json!({"ref": head, "sha": "abc"}),
        json!({"ref": branch, "sha": sha}),
        json!({"ref": "refs/heads/a..b", "sha": sha}),
        json!({"ref": head, "sha": sha, "force": true}),
        json!({"ref": head}),
    ] {
        let r = api.call("POST", &refs, t, Some(wrong.clone())).await;
        assert!(matches!(r.status, 400 | 422), "{wrong}: {:?}", r.body);
    }
    let r = api.call("GET", &refs, t, None).await;
    assert_eq!(r.body, json!([]), "refused writes store nothing");
    let r = api.call("POST", &refs, t, Some(body)).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body["ref"], head.as_str());
    assert_eq!(r.body["object"]["sha"], sha);
    assert_eq!(r.body["object"]["type"], "commit");
    let moved = "f".repeat(40);
    let r = api
        .call("POST", &refs, t, Some(json!({"ref": head, "sha": moved})))
        .await;
    assert_eq!(r.status, 200, "a known ref moves: {:?}", r.body);

    // The pull request shows it, read alone or listed; tea's lookup finds it.
    let r = api.call("GET", &pull, t, None).await;
    assert_eq!(r.body["head"]["sha"], moved.as_str());
    assert_eq!(r.body["base"]["sha"], "");
    let r = api
        .call("GET", &format!("{repo}/pulls?state=all"), t, None)
        .await;
    assert_eq!(r.body[0]["head"]["sha"], moved.as_str());
    assert_eq!(r.body[0]["base"]["repo"]["full_name"], full_name.as_str());
    let one = format!("{refs}/heads/{branch}");
    let r = api.call("GET", &one, by_reader, None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body.as_array().map(Vec::len), Some(1));
    assert_eq!(r.body[0]["object"]["sha"], moved.as_str());
    let url = format!("api/v1/repos/{full_name}/git/refs/heads/{branch}");
    assert!(r.body[0]["url"].as_str().unwrap().ends_with(&url));
    let r = api.call("GET", &format!("{refs}/tags"), t, None).await;
    assert_eq!(r.status, 404);
    let r = api
        .call("GET", &format!("{refs}/heads/nosuch"), t, None)
        .await;
    assert_eq!(r.status, 404);
    let long = format!("{refs}/heads/{}", "x".repeat(2000));
    assert_eq!(api.call("GET", &long, t, None).await.status, 404);
}

async fn search(api: &Api, q: String, auth: Auth<'_>) -> api_tests::Reply {
    let path = format!("/api/v1/repos/search?q={q}");
    api.call("GET", &path, auth, None).await
}

/// The names of a page of repositories (an array, or search's `data`).
fn names(body: &Value) -> Vec<String> {
    let list = body.get("data").unwrap_or(body);
    let each = |r: &Value| r["name"].as_str().unwrap_or_default().to_string();
    list.as_array()
        .map(|a| a.iter().map(each).collect())
        .unwrap_or_default()
}

async fn make_repo(api: &Api, who: &api_tests::TestUser, path: &str, name: &str, private: bool) {
    let body = json!({"name": name, "private": private});
    let r = api
        .call("POST", path, Auth::Token(&who.token), Some(body))
        .await;
    assert_eq!(r.status, 201, "create {name}: {:?}", r.body);
}

#[tokio::test]
async fn repository_lists_merge_owners_by_name() {
    let api = Api::from_env();
    let (a, b) = (api.new_user("rla").await, api.new_user("rlb").await);
    let org = api.new_org(&a, "rlo", "public").await;
    let hidden = api.new_org(&b, "rlp", "private").await;
    let w = unique("w");
    let n = |s: &str| format!("{s}{w}");
    let mine = "/api/v1/user/repos";
    make_repo(&api, &a, mine, &n("a"), false).await;
    make_repo(&api, &a, mine, &n("b"), true).await;
    make_repo(
        &api,
        &a,
        &format!("/api/v1/orgs/{org}/repos"),
        &n("c"),
        true,
    )
    .await;
    make_repo(&api, &b, mine, &n("d"), false).await;
    make_repo(&api, &b, mine, &n("e"), true).await;
    make_repo(
        &api,
        &b,
        &format!("/api/v1/orgs/{hidden}/repos"),
        &n("f"),
        false,
    )
    .await;
    api.add_collaborator(&b, &b.name, &n("e"), &a.name, "read")
        .await;

    // The caller's own, their organisation's and their collaborations.
    let r = api.call("GET", mine, Auth::Token(&a.token), None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(names(&r.body), [n("a"), n("b"), n("c"), n("e")]);
    assert_eq!(r.total(), Some(4));
    assert_eq!(r.body[1]["permissions"]["admin"], true);
    assert_eq!(
        r.body[3]["permissions"],
        json!({"admin": false, "push": false, "pull": true})
    );
    let r = api
        .call(
            "GET",
            &format!("{mine}?limit=2&page=2"),
            Auth::Token(&a.token),
            None,
        )
        .await;
    assert_eq!(names(&r.body), [n("c"), n("e")]);
    assert!(
        r.header("link")
            .is_some_and(|l| l.contains("rel=\"first\"")),
        "{r:?}"
    );
    let r = api.call("GET", mine, Auth::None, None).await;
    assert_eq!(r.status, 401);

    // Search: public repositories of visible owners, and what one was given.
    let r = search(&api, w.clone(), Auth::None).await;
    assert_eq!(
        (r.status, &r.body["ok"]),
        (200, &json!(true)),
        "{:?}",
        r.body
    );
    assert_eq!(names(&r.body), [n("a"), n("d")], "not a private owner's");
    assert_eq!(r.total(), Some(2));
    let r = search(&api, w.clone(), Auth::Token(&a.token)).await;
    assert_eq!(names(&r.body), [n("a"), n("b"), n("c"), n("d"), n("e")]);
    let r = search(&api, w.clone(), Auth::Token(&b.token)).await;
    assert_eq!(names(&r.body), [n("a"), n("d"), n("e"), n("f")]);
    let r = search(
        &api,
        format!("{w}&order=desc&limit=2"),
        Auth::Token(&a.token),
    )
    .await;
    assert_eq!(names(&r.body), [n("e"), n("d")]);
    let r = search(&api, format!("{w}&private=false"), Auth::Token(&a.token)).await;
    assert_eq!(names(&r.body), [n("a"), n("d")]);
    let r = search(&api, format!("{w}&is_private=true"), Auth::Token(&a.token)).await;
    assert_eq!(names(&r.body), [n("b"), n("c"), n("e")]);
    let r = search(
        &api,
        format!("nosuch,{}", n("D").to_uppercase()),
        Auth::None,
    )
    .await;
    assert_eq!(names(&r.body), [n("d")], "any of the words, in any case");
    let r = search(&api, format!("{w}&mode=fork"), Auth::Token(&a.token)).await;
    assert_eq!(names(&r.body), Vec::<String>::new());

    // uid: one owner's, as far as the caller may see them.
    let id = api
        .call(
            "GET",
            &format!("/api/v1/users/{}", a.name),
            Auth::None,
            None,
        )
        .await;
    let uid = id.body["id"].as_i64().unwrap();
    let r = search(&api, format!("{w}&uid={uid}"), Auth::None).await;
    assert_eq!(names(&r.body), [n("a")]);
    let r = search(&api, format!("{w}&uid={uid}"), Auth::Token(&a.token)).await;
    assert_eq!(names(&r.body), [n("a"), n("b")]);
    let hid = api
        .call(
            "GET",
            &format!("/api/v1/orgs/{hidden}"),
            Auth::Token(&b.token),
            None,
        )
        .await;
    let hid = hid.body["id"].as_i64().unwrap();
    let r = search(&api, format!("{w}&uid={hid}"), Auth::Token(&a.token)).await;
    assert_eq!(
        (names(&r.body), r.total()),
        (vec![], Some(0)),
        "a hidden owner lends nothing"
    );

    for bad in [
        "sort=created",
        "sort=nosuch",
        "order=up",
        "mode=x",
        "topic=true",
        "limit=50&page=21",
    ] {
        let r = search(&api, format!("{w}&{bad}"), Auth::None).await;
        assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
    }

    // The public listing follows archiving, visibility and deletes.
    let repo = |s: &str| format!("/api/v1/repos/{}/{}", a.name, n(s));
    let patch = |s: &str, body: Value| {
        let (api, path, t) = (&api, repo(s), a.token.clone());
        async move { api.call("PATCH", &path, Auth::Token(&t), Some(body)).await }
    };
    assert_eq!(patch("a", json!({"archived": true})).await.status, 200);
    let r = search(&api, format!("{w}&archived=true"), Auth::None).await;
    assert_eq!(names(&r.body), [n("a")]);
    assert_eq!(patch("a", json!({"private": true})).await.status, 200);
    let r = search(&api, w.clone(), Auth::None).await;
    assert_eq!(names(&r.body), [n("d")]);
    let entries = items_under("REPOLIST#public", &n("a")).await;
    assert!(
        entries.is_empty(),
        "a private repository leaves the listing"
    );
    assert_eq!(
        patch("a", json!({"private": false, "name": n("g")}))
            .await
            .status,
        200
    );
    let r = search(&api, w.clone(), Auth::None).await;
    assert_eq!(names(&r.body), [n("d"), n("g")]);
    let d = format!("/api/v1/repos/{}/{}", b.name, n("d"));
    let gone = api.call("DELETE", &d, Auth::Token(&b.token), None).await;
    assert_eq!(gone.status, 204);
    let r = search(&api, w.clone(), Auth::None).await;
    assert_eq!(names(&r.body), [n("g")]);
    assert_eq!(items_under("REPOLIST#public", &n("d")).await.len(), 0);
}

#[tokio::test]
async fn organisation_lists_follow_visibility() {
    let api = Api::from_env();
    let (a, b) = (api.new_user("ola").await, api.new_user("olb").await);
    let p = api.new_org(&a, "olp", "public").await;
    let l = api.new_org(&a, "oll", "limited").await;
    let v = api.new_org(&a, "olv", "private").await;
    let logins = |body: &Value| -> Vec<String> {
        let each = |o: &Value| o["username"].as_str().unwrap_or_default().to_string();
        body.as_array()
            .map(|a| a.iter().map(each).collect())
            .unwrap_or_default()
    };
    let mut all = vec![p.clone(), l.clone(), v.clone()];
    all.sort();
    let r = api
        .call("GET", "/api/v1/user/orgs", Auth::Token(&a.token), None)
        .await;
    assert_eq!(
        (r.status, logins(&r.body)),
        (200, all.clone()),
        "{:?}",
        r.body
    );
    assert_eq!(r.total(), Some(3));
    let theirs = format!("/api/v1/users/{}/orgs", a.name);
    let r = api.call("GET", &theirs, Auth::Token(&b.token), None).await;
    let mut seen = vec![p.clone(), l.clone()];
    seen.sort();
    assert_eq!(logins(&r.body), seen, "a stranger: public and limited");
    let r = api.call("GET", &theirs, Auth::None, None).await;
    assert_eq!(logins(&r.body), vec![p.clone()], "anonymous: public only");
    let r = api.call("GET", &theirs, api.admin(), None).await;
    assert_eq!(logins(&r.body), all);
    let r = api
        .call(
            "GET",
            &format!("{theirs}?limit=1&page=2"),
            api.admin(),
            None,
        )
        .await;
    assert_eq!(
        (logins(&r.body), r.total()),
        (vec![all[1].clone()], Some(3))
    );

    // A member of the private organisation sees it.
    let team = json!({"name": "devs", "permission": "read"});
    let path = format!("/api/v1/orgs/{v}/teams");
    let t = api
        .call("POST", &path, Auth::Token(&a.token), Some(team))
        .await;
    let id = t.body["id"].as_i64().unwrap();
    let join = format!("/api/v1/teams/{id}/members/{}", b.name);
    assert_eq!(
        api.call("PUT", &join, Auth::Token(&a.token), None)
            .await
            .status,
        204
    );
    let r = api.call("GET", &theirs, Auth::Token(&b.token), None).await;
    assert_eq!(logins(&r.body), all);
    let r = api
        .call("GET", "/api/v1/user/orgs", Auth::Token(&b.token), None)
        .await;
    assert_eq!(logins(&r.body), vec![v.clone()]);

    let r = api
        .call("GET", "/api/v1/users/nosuchuser0/orgs", Auth::None, None)
        .await;
    assert_eq!(r.status, 404);
    let r = api.call("GET", "/api/v1/user/orgs", Auth::None, None).await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn assignees_are_those_who_may_write() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("asso", true).await;
    let (w, r, x) = (
        api.new_user("assw").await,
        api.new_user("assr").await,
        api.new_user("assx").await,
    );
    let name = repo.rsplit('/').next().unwrap().to_string();
    api.add_collaborator(&owner, &owner.name, &name, &w.name, "write")
        .await;
    api.add_collaborator(&owner, &owner.name, &name, &r.name, "read")
        .await;
    let path = format!("{repo}/assignees");
    let got = api.call("GET", &path, Auth::Token(&r.token), None).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let logins = |b: &Value| -> Vec<String> {
        let each = |u: &Value| u["login"].as_str().unwrap_or_default().to_string();
        let mut v: Vec<String> = b
            .as_array()
            .map(|a| a.iter().map(each).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let mut want = vec![owner.name.clone(), w.name.clone()];
    want.sort();
    assert_eq!(logins(&got.body), want);
    let got = api.call("GET", &path, Auth::Token(&x.token), None).await;
    assert_eq!(got.status, 404, "a private repository is hidden");

    // An organisation's: its owners and the members of teams that write.
    let org = api.new_org(&owner, "asgo", "public").await;
    let orepo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), false)
        .await;
    for (team, member, perm) in [("writers", &w, "write"), ("readers", &r, "read")] {
        let body =
            json!({"name": team, "permission": perm, "units": ["repo.issues", "repo.pulls"]});
        let t = api
            .call(
                "POST",
                &format!("/api/v1/orgs/{org}/teams"),
                Auth::Token(&owner.token),
                Some(body),
            )
            .await;
        let id = t.body["id"].as_i64().unwrap();
        let join = format!("/api/v1/teams/{id}/members/{}", member.name);
        assert_eq!(
            api.call("PUT", &join, Auth::Token(&owner.token), None)
                .await
                .status,
            204
        );
        let grant = format!("/api/v1/teams/{id}/repos/{org}/{orepo}");
        assert_eq!(
            api.call("PUT", &grant, Auth::Token(&owner.token), None)
                .await
                .status,
            204
        );
    }
    let path = format!("/api/v1/repos/{org}/{orepo}/assignees");
    let got = api.call("GET", &path, Auth::None, None).await;
    assert_eq!((got.status, logins(&got.body)), (200, want));
}
