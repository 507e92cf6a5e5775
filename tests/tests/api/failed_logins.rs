//! Failed passwords are counted per user name (`auth::failed_logins`):
//! past the limit, passwords for the name get 429 with `Retry-After`,
//! right ones included, while its tokens and other names work on.

use std::time::Duration;

use api_tests::{Api, Auth, Reply, items_under, unique};
use futures::future::join_all;
use shared::{
    auth::failed_logins::{self, POLICY},
    db,
};

/// Routes of three functions (accounts, issue-search, repos): the count
/// is the name's, whatever serves it. Credentials are checked before
/// anything else, so the repository need not exist.
const ROUTES: [&str; 3] = [
    "/api/v1/user",
    "/api/v1/repos/issues/search",
    "/api/v1/repos/no-such-owner/no-such-repo",
];

/// Starts a test's attempts early enough in a window that they all fall
/// in it (the windows are fixed, 15 minutes long).
async fn early_in_a_window() {
    const MARGIN: i64 = 30;
    let now = shared::time::now();
    let left = POLICY.window(now).end - now;
    if left < MARGIN {
        tokio::time::sleep(Duration::from_secs(left as u64 + 1)).await;
    }
}

/// The failed passwords stored for `name`, in every window.
async fn stored_failures(name: &str) -> i64 {
    let key = failed_logins::key(name, POLICY.window(shared::time::now()));
    items_under(db::text(&key, "pk"), "WINDOW#")
        .await
        .iter()
        .map(|i| db::number(i, "n"))
        .sum()
}

async fn user(api: &Api, name: &str, password: &str, route: &str) -> Reply {
    api.call("GET", route, Auth::Basic(name, password), None)
        .await
}

/// A 429 for too many failed passwords, in Gitea's error shape.
fn assert_locked(api: &Api, r: &Reply, row: &str) {
    assert_eq!(r.status, 429, "{row}: {:?}", r.body);
    let wait: u64 = r
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{row}: Retry-After in seconds: {:?}", r.headers));
    assert!(
        (1..=POLICY.window_secs as u64).contains(&wait),
        "{row}: {wait}"
    );
    assert!(
        r.message()
            .starts_with("too many failed sign-ins for this user name"),
        "{row}: {:?}",
        r.body
    );
    assert_eq!(r.body["url"], format!("{}/api/swagger", api.base), "{row}");
}

#[tokio::test]
async fn a_name_with_too_many_failed_passwords_is_locked_but_its_tokens_are_not() {
    let api = Api::from_env();
    let (u, other) = (api.new_user("lock").await, api.new_user("notlocked").await);
    early_in_a_window().await;
    for i in 0..POLICY.most {
        let route = ROUTES[i as usize % ROUTES.len()];
        let r = user(&api, &u.name, &format!("wrong-{i}"), route).await;
        assert_eq!(r.status, 401, "attempt {i} on {route}: {:?}", r.body);
    }
    assert_eq!(stored_failures(&u.name).await, POLICY.most);

    // Locked: the right password is not even checked, in any spelling of
    // the name, on any route.
    let r = user(&api, &u.name, &u.password, ROUTES[0]).await;
    assert_locked(&api, &r, "right password");
    let r = user(&api, &u.name.to_uppercase(), &u.password, ROUTES[1]).await;
    assert_locked(&api, &r, "upper-case name");
    let r = user(&api, &u.name, "wrong-again", ROUTES[2]).await;
    assert_locked(&api, &r, "wrong password");
    assert_eq!(
        stored_failures(&u.name).await,
        POLICY.most,
        "refused attempts are not counted (nor checked)"
    );

    // Its tokens work, in every form; other names are not affected.
    for auth in [
        Auth::Token(&u.token),
        Auth::Basic(&u.name, &u.token),
        Auth::Basic(&u.token, ""),
    ] {
        let r = api.call("GET", "/api/v1/user", auth, None).await;
        assert_eq!(
            (r.status, &r.body["login"]),
            (200, &serde_json::json!(u.name)),
            "{auth:?}"
        );
    }
    let r = user(&api, &other.name, &other.password, ROUTES[0]).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[tokio::test]
async fn unknown_names_are_counted_like_known_ones() {
    let api = Api::from_env();
    let nobody = unique("nosuchlogin");
    early_in_a_window().await;
    for i in 0..POLICY.most {
        let r = user(&api, &nobody, "pw", ROUTES[0]).await;
        assert_eq!(r.status, 401, "attempt {i}: {:?}", r.body);
    }
    let r = user(&api, &nobody, "pw", ROUTES[0]).await;
    assert_locked(&api, &r, "unknown name");
    assert_eq!(stored_failures(&nobody).await, POLICY.most);
}

#[tokio::test]
async fn concurrent_failed_passwords_are_all_counted() {
    let api = Api::from_env();
    let u = api.new_user("burst").await;
    early_in_a_window().await;
    let attempts = 2 * POLICY.most as usize;
    let replies = join_all((0..attempts).map(|i| {
        let route = ROUTES[i % ROUTES.len()];
        let password = format!("wrong-{i}");
        let (api, name) = (&api, &u.name);
        async move { user(api, name, &password, route).await }
    }))
    .await;
    let count = |status| replies.iter().filter(|r| r.status == status).count();
    let (refused, locked) = (count(401), count(429));
    assert_eq!(
        refused + locked,
        attempts,
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    // A 429 needs the limit's worth of failures counted before it.
    assert!(
        locked == 0 || refused >= POLICY.most as usize,
        "{refused} 401s"
    );
    assert_eq!(
        stored_failures(&u.name).await,
        refused as i64,
        "every 401 was counted once"
    );
    let r = user(&api, &u.name, &u.password, ROUTES[0]).await;
    assert_locked(&api, &r, "after the burst");
}
