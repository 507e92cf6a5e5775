//! The largest issue page anyone can make the API answer, measured: every
//! field at its bound, in the character that JSON escapes the most (a
//! control character: six bytes in the body, seven in Lambda's envelope).
//! The page must keep its 50 elements and still fit Lambda's response
//! limit; the test prints its size.

use api_tests::{
    Api, TestUser,
    raw::{BUDGET, get_raw, send},
};
use futures::future::join_all;
use serde_json::{Value, json};

/// The most-escaped character.
fn worst(n: usize) -> String {
    "\u{1}".repeat(n)
}

async fn create(api: &Api, who: &TestUser, path: String, body: Value) -> Value {
    let r = send(
        api,
        "POST",
        &path,
        &format!("token {}", who.token),
        Some(&body),
    )
    .await;
    // Resent after the emulator dropped its answer (`send`), a create is
    // found applied; an answer this large is not kept for replay, so the
    // resend gets 409 saying so. Only the issues' answers are that large,
    // and the test reads them back from the listings.
    if r.status == 409 && r.text.contains("was applied") {
        return Value::Null;
    }
    assert_eq!(
        r.status,
        201,
        "POST {path}: {}",
        r.text.chars().take(300).collect::<String>()
    );
    r.json
}

#[tokio::test]
async fn the_largest_possible_issue_page_fits_lambda() {
    let api = Api::from_env();
    let long_name = json!({"full_name": worst(100)});
    let owner = api.new_user_with("lp", long_name.clone()).await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let base = format!("/api/v1/repos/{}/{repo}", owner.name);
    let mut assignees = Vec::new();
    for _ in 0..10 {
        let u = api.new_user_with("lpa", long_name.clone()).await;
        api.add_collaborator(&owner, &owner.name, &repo, &u.name, "write")
            .await;
        assignees.push(u.name);
    }
    let milestone = create(
        &api,
        &owner,
        format!("{base}/milestones"),
        json!({"title": worst(255), "description": worst(65_535)}),
    )
    .await;
    let mut labels = Vec::new();
    for batch in (0..100).collect::<Vec<_>>().chunks(10) {
        let made = join_all(batch.iter().map(|i| {
            let body = json!({"name": format!("{i:02}{}", worst(48)), "color": "#ee0701",
                "description": worst(200)});
            create(&api, &owner, format!("{base}/labels"), body)
        }))
        .await;
        labels.extend(made.iter().map(|l| l["id"].clone()));
    }
    let issue = json!({
        "title": worst(255), "body": worst(65_536), "ref": worst(255),
        "labels": labels, "assignees": assignees, "milestone": milestone["id"],
    });
    for _ in 0..5 {
        join_all((0..10).map(|_| create(&api, &owner, format!("{base}/issues"), issue.clone())))
            .await;
    }

    let auth = format!("token {}", owner.token);
    api_tests::settle().await;
    for path in [
        format!("{base}/issues?state=all&limit=50"),
        format!(
            "/api/v1/repos/issues/search?owner={}&state=all&limit=50",
            owner.name
        ),
    ] {
        let page = get_raw(&api, &path, &auth).await;
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(page.items().len(), 50, "{path}: the page keeps its length");
        assert_eq!(
            page.omitted(),
            Some("body,ref,milestone.description,labels.description"),
            "{path}"
        );
        let first = &page.items()[0];
        assert_eq!(first["labels"].as_array().map(Vec::len), Some(100));
        assert_eq!(first["assignees"].as_array().map(Vec::len), Some(10));
        assert_eq!(first["title"], json!(worst(255)));
        let size = page.envelope();
        eprintln!("largest page: {path}: {size} envelope bytes");
        assert!(size < BUDGET, "{path}: {size} bytes");
    }
}
