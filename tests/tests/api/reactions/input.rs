//! Bad bodies are refused and change nothing.

use super::*;

#[tokio::test]
async fn bad_bodies_are_refused_and_change_nothing() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "input").await;
    let id = comment(&r, &r.owner, n, "c").await;
    let auth = Auth::Token(&r.reader.token);
    for target in [n.to_string(), format!("comments/{id}")] {
        let p = path(&r, &target);
        for method in ["POST", "DELETE"] {
            let raw: [(&[u8], &str); 4] = [
                (b"{\"content\": \"heart\"", "malformed JSON"),
                (b"[\"heart\"]", "must be a JSON object"),
                (b"", "request body is required"),
                (b"\"heart\"", "must be a JSON object"),
            ];
            for (body, says) in raw {
                let got = r
                    .api
                    .raw(method, &p, auth, Some("application/json"), body.to_vec())
                    .await;
                assert_eq!(got.status, 422, "{method} {body:?}: {:?}", got.body);
                assert!(got.message().contains(says), "{method}: {:?}", got.body);
            }
            for (body, says) in [
                (
                    json!({"content": "heart", "extra": 1}),
                    "unknown field `extra`",
                ),
                (json!({"reaction": "heart"}), "unknown field `reaction`"),
                (json!({"content": 5}), "content: invalid type: integer"),
                (
                    json!({"content": ["heart"]}),
                    "content: invalid type: sequence",
                ),
                (json!({"content": null}), "content: invalid type: null"),
            ] {
                let got = r.api.call(method, &p, auth, Some(body.clone())).await;
                assert_eq!(got.status, 422, "{method} {body}: {:?}", got.body);
                assert!(
                    got.message().contains(says),
                    "{method} {body}: {:?}",
                    got.body
                );
            }
            // Not JSON at all.
            let got = r
                .api
                .raw(method, &p, auth, Some("text/plain"), b"heart".to_vec())
                .await;
            assert_eq!(got.status, 415, "{method}: {:?}", got.body);
        }
        let got = list(&r, Auth::None, &target, "").await;
        assert_eq!((got.total(), got.body), (Some(0), json!([])));
    }
    assert!(stored(r.repo_id().await).await.is_empty());
    // Without credentials: 401 before the body is read.
    let got = send(&r, "POST", Auth::None, &n.to_string(), "heart").await;
    assert_eq!(got.status, 401, "{:?}", got.body);
}
