//! The meta endpoints clients call first: version (Gitea's JSON or
//! Coolify's text, by the caller's token), the paging settings, health,
//! and the Swagger UI page with its assets.

use api_tests::{Api, Auth};
use reqwest::header::HeaderMap;
use serde_json::json;

#[tokio::test]
async fn version_speaks_to_the_client_the_token_belongs_to() {
    let api = Api::from_env();
    let u = api.new_user("ver").await;
    let deploy = api.token(&u.name, &u.password, &["read", "deploy"]).await;
    let public_only = api
        .token(&u.name, &u.password, &["read:user", "public-only"])
        .await;
    let mixed = api
        .token(&u.name, &u.password, &["read:user", "root"])
        .await;
    let gitea = json!({"version": "1.25.0"});
    // (who, expected JSON; None: Coolify's text)
    let rows = [
        ("anonymous", Auth::None, Some(&gitea)),
        ("Gitea token", Auth::Token(&u.token), Some(&gitea)),
        ("bootstrap admin [all, root]", api.admin(), Some(&gitea)),
        ("mixed token", Auth::Token(&mixed), Some(&gitea)),
        ("public-only token", Auth::Token(&public_only), Some(&gitea)),
        ("deploy-only token", Auth::Token(&deploy), None),
    ];
    for (who, auth, json) in rows {
        let r = api.call("GET", "/api/v1/version", auth, None).await;
        assert_eq!(r.status, 200, "{who}: {:?}", r.body);
        match json {
            Some(v) => {
                assert_eq!(&r.body, v, "{who}");
                assert!(
                    r.header("content-type")
                        .unwrap_or("")
                        .starts_with("application/json"),
                    "{who}"
                );
            }
            None => {
                assert_eq!(r.body, json!("v4.0.0"), "{who}");
                assert!(
                    r.header("content-type")
                        .unwrap_or("")
                        .starts_with("text/html"),
                    "{who}"
                );
            }
        }
    }
    let r = api
        .call("GET", "/api/v1/version", Auth::Token("not-a-token"), None)
        .await;
    assert_eq!(r.status, 401, "a wrong token is still refused");
}

#[tokio::test]
async fn api_settings_are_the_paging_numbers_enforced() {
    let api = Api::from_env();
    let r = api
        .call("GET", "/api/v1/settings/api", Auth::None, None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let max = r.body["max_response_items"].as_u64().unwrap();
    let default = r.body["default_paging_num"].as_u64().unwrap();
    assert_eq!((default, max), (30, 50));
    // A repository with one issue more than the maximum: a list asked for
    // more gets the maximum, one asked for nothing the default.
    let (owner, repo) = api.user_repo("pg", false).await;
    for i in 0..=max {
        api.new_issue(&owner, &repo, &format!("issue {i}")).await;
    }
    let r = api
        .call(
            "GET",
            &format!("{repo}/issues?limit=1000"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.body.as_array().map(Vec::len), Some(max as usize));
    let r = api
        .call(
            "GET",
            &format!("{repo}/issues"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.body.as_array().map(Vec::len), Some(default as usize));
}

#[tokio::test]
async fn health_checks_answer_without_credentials() {
    let api = Api::from_env();
    let r = api.call("GET", "/api/v1/health", Auth::None, None).await;
    assert_eq!((r.status, &r.body), (200, &json!("OK")));
    assert!(
        r.header("content-type")
            .unwrap_or("")
            .starts_with("text/html")
    );
    let r = api.call("GET", "/api/healthz", Auth::None, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "pass");
    assert_eq!(r.header("content-type"), Some("application/health+json"));
}

#[tokio::test]
async fn the_openapi_document_is_served_for_this_deployment() {
    let api = Api::from_env();
    let r = api.call("GET", "/swagger.v1.json", Auth::None, None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body["openapi"].as_str().unwrap_or("").starts_with("3."));
    let base = std::env::var("API_URL").expect("API_URL");
    assert_eq!(
        r.body["servers"],
        json!([{"url": base.trim_end_matches('/'), "description": "this deployment"}])
    );
    for path in [
        "/api/v1/version",
        "/api/v1/repos/{owner}/{repo}/issues",
        "/api/v1/applications",
    ] {
        assert!(r.body["paths"].get(path).is_some(), "{path} documented");
    }
}

/// The docs function may not read the table (its DynamoDB grant is empty),
/// so it reads no credential either: Swagger UI sends the one a user
/// authorised with on every request, and the document still loads.
#[tokio::test]
async fn the_openapi_document_ignores_credentials() {
    let api = Api::from_env();
    for auth in [
        Auth::Token("not-a-token"),
        Auth::Basic("nobody", "wrong"),
        Auth::Query("not-a-token"),
        api.admin(),
    ] {
        let r = api.call("GET", "/swagger.v1.json", auth, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
}

/// A GET with the given `Accept-Encoding`, its bytes as they came (the
/// test client decompresses nothing).
async fn fetch(url: &reqwest::Url, accept_encoding: &str) -> (u16, HeaderMap, Vec<u8>) {
    let res = reqwest::Client::new()
        .get(url.clone())
        .header("accept-encoding", accept_encoding)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let (status, headers) = (res.status().as_u16(), res.headers().clone());
    let body = res.bytes().await.expect("a body").to_vec();
    (status, headers, body)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Whether any `Vary` header names `Accept-Encoding` (the local emulator
/// adds one of its own).
fn varies_by_encoding(headers: &HeaderMap) -> bool {
    headers
        .get_all("vary")
        .iter()
        .any(|v| v.to_str().unwrap_or("").contains("Accept-Encoding"))
}

/// Every `src` and `href` of the page.
fn links(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for attr in [" src=\"", " href=\""] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            out.push(&rest[..rest.find('"').expect("a closed attribute")]);
        }
    }
    out
}

#[tokio::test]
async fn the_swagger_page_loads_only_its_own_assets() {
    let base = std::env::var("API_URL").expect("API_URL");
    let page = reqwest::Url::parse(&format!("{}/api/swagger", base.trim_end_matches('/'))).unwrap();
    let (status, headers, body) = fetch(&page, "gzip, deflate, br").await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&headers, "cache-control"), "no-cache");
    let csp = header(&headers, "content-security-policy");
    for directive in [
        "default-src 'none'",
        "script-src 'self';",
        "connect-src 'self'",
    ] {
        assert!(csp.contains(directive), "CSP {csp:?} has {directive}");
    }
    let html = String::from_utf8(body).expect("UTF-8");
    assert!(!html.contains("://"), "no outside URL in the page: {html}");
    // Everything is named relative to the page, so it works under a prefix.
    let links = links(&html);
    assert_eq!(links.len(), 4, "a stylesheet, an icon, two scripts: {html}");
    let mut types = Vec::new();
    for link in links {
        assert!(link.starts_with("swagger/assets/"), "{link}");
        let url = page.join(link).unwrap();
        let (status, headers, _) = fetch(&url, "identity").await;
        assert_eq!(status, 200, "{url}");
        assert_eq!(
            header(&headers, "cache-control"),
            "public, max-age=31536000, immutable",
            "{url}"
        );
        assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
        assert_eq!(header(&headers, "content-encoding"), "", "{url}");
        types.push(header(&headers, "content-type").to_string());
    }
    types.sort();
    assert_eq!(
        types,
        [
            "image/png",
            "text/css; charset=utf-8",
            "text/javascript; charset=utf-8",
            "text/javascript; charset=utf-8"
        ]
    );
    // The document the page renders, named relative to the page too.
    let doc = html
        .split("data-url=\"")
        .nth(1)
        .and_then(|s| s.split('"').next());
    let doc = page
        .join(doc.expect("the page names its document"))
        .unwrap();
    assert_eq!(doc.path(), "/swagger.v1.json");
    let (status, headers, _) = fetch(&doc, "identity").await;
    assert_eq!(status, 200);
    assert!(header(&headers, "content-type").starts_with("application/json"));
}

#[tokio::test]
async fn swagger_assets_are_gzipped_for_clients_that_accept_it() {
    let base = std::env::var("API_URL").expect("API_URL");
    let page = reqwest::Url::parse(&format!("{}/api/swagger", base.trim_end_matches('/'))).unwrap();
    let html = String::from_utf8(fetch(&page, "identity").await.2).unwrap();
    let bundle = links(&html)
        .into_iter()
        .find(|l| l.contains("swagger-ui-bundle."))
        .expect("the page loads Swagger UI's bundle");
    let url = page.join(bundle).unwrap();
    let (status, plain_headers, plain) = fetch(&url, "identity").await;
    assert_eq!(status, 200);
    assert!(varies_by_encoding(&plain_headers));
    let (status, headers, gzipped) = fetch(&url, "gzip, deflate, br, zstd").await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-encoding"), "gzip");
    assert!(varies_by_encoding(&headers));
    assert_eq!(
        header(&headers, "content-type"),
        "text/javascript; charset=utf-8"
    );
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gzipped[..]),
        &mut unzipped,
    )
    .expect("a gzip body");
    assert!(unzipped == plain, "the same bytes either way");
    assert!(plain.len() > 1_000_000 && gzipped.len() < plain.len() / 3);
    let (_, headers, _) = fetch(&url, "gzip;q=0, br").await;
    assert_eq!(
        header(&headers, "content-encoding"),
        "",
        "gzip;q=0 refuses it"
    );
}

#[tokio::test]
async fn unknown_swagger_assets_are_not_found() {
    let api = Api::from_env();
    let r = api.call("GET", "/api/swagger", Auth::None, None).await;
    let html = r.body.as_str().unwrap_or_default().to_string();
    let css = links(&html)
        .into_iter()
        .find(|l| l.ends_with(".css"))
        .expect("a stylesheet")
        .trim_start_matches("swagger/assets/")
        .to_string();
    let stale = css.replacen('.', ".0", 1); // another deployment's hash
    for name in [
        stale.as_str(),
        "swagger-ui.css",
        "nothing.js",
        "..%2Fswagger.v1.json",
    ] {
        let r = api
            .call(
                "GET",
                &format!("/api/swagger/assets/{name}"),
                Auth::None,
                None,
            )
            .await;
        assert_eq!(r.status, 404, "{name}: {:?}", r.body);
        assert_eq!(r.message(), "not found", "{name}");
    }
    let r = api
        .call(
            "GET",
            &format!("/api/swagger/assets/{css}"),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{css}");
    let r = api.call("POST", "/api/swagger", Auth::None, None).await;
    assert_eq!(r.status, 405);
}

#[tokio::test]
async fn error_bodies_link_to_the_swagger_page() {
    let api = Api::from_env();
    let r = api
        .call("GET", "/api/v1/no/such/route", Auth::None, None)
        .await;
    assert_eq!(r.status, 404);
    let link = r.body["url"].as_str().expect("a url").to_string();
    assert_eq!(link, format!("{}/api/swagger", api.base));
    let (status, headers, _) = fetch(&reqwest::Url::parse(&link).unwrap(), "identity").await;
    assert_eq!(status, 200, "{link}");
    assert!(header(&headers, "content-type").starts_with("text/html"));
}
