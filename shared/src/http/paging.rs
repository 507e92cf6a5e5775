//! Gitea paging: `page` (1-based) and `limit` query parameters, the
//! `X-Total-Count` header and the `Link` header, built exactly as Gitea's
//! `genAPILinks` does (keys sorted, entries joined by `,`).

use lambda_http::http::HeaderValue;

use super::{Query, Response};
use crate::Config;

pub use crate::page::Page;

/// The `Link` header value for `total` items, or `None` when there is no
/// other page to point at.
pub fn link_header(
    config: &Config,
    path: &str,
    query: &Query,
    total: u64,
    page: Page,
) -> Option<String> {
    let size = page.size.max(1) as u64;
    let total_pages = total.div_ceil(size);
    let current = (page.page as u64).min(total_pages).max(1);
    let link = |n: u64, rel: &str| {
        // Credentials sent in the query never go into a URL we write.
        let mut pairs: Vec<(&str, String)> = query
            .pairs()
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "page" | "token" | "access_token"))
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        pairs.push(("page", n.to_string()));
        // Go's url.Values.Encode sorts by key and keeps the order of values.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        let qs = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        format!("<{}?{qs}>; rel=\"{rel}\"", config.url(path))
    };
    let mut links = Vec::new();
    if current * size < total {
        links.push(link(current + 1, "next"));
        links.push(link(total_pages, "last"));
    }
    if current != 1 {
        links.push(link(1, "first"));
    }
    if current > 1 {
        links.push(link(current - 1, "prev"));
    }
    (!links.is_empty()).then(|| links.join(","))
}

/// The `Link` header value of a listing whose total is not counted, only
/// whether more follow (`more`): `next` when they do, `first` and `prev`
/// past the first page, never `last`.
pub fn link_header_open(
    config: &Config,
    path: &str,
    query: &Query,
    page: Page,
    more: bool,
) -> Option<String> {
    // As many as this page reaches, and one more page if more follow:
    // `link_header` then points at the pages around this one.
    let size = page.size.max(1) as u64;
    let total = (page.page as u64 - 1 + more as u64) * size + 1;
    let link = link_header(config, path, query, total, page)?;
    let kept: Vec<&str> = link
        .split(',')
        .filter(|l| !l.ends_with("rel=\"last\""))
        .collect();
    (!kept.is_empty()).then(|| kept.join(","))
}

/// Sets `Link` and `X-HasMore` (Gitea's header for listings it does not
/// count, `true` or `false`) and the CORS exposure of both, for a
/// listing without `X-Total-Count`.
pub fn set_open_headers(res: &mut Response, link: Option<String>, more: bool) {
    let headers = res.headers_mut();
    let mut exposed = Vec::new();
    if let Some(link) = link.and_then(|l| HeaderValue::from_str(&l).ok()) {
        headers.insert("link", link);
        exposed.push("Link");
    }
    headers.insert(
        "x-hasmore",
        HeaderValue::from_static(if more { "true" } else { "false" }),
    );
    exposed.push("X-HasMore");
    if let Ok(v) = HeaderValue::from_str(&exposed.join(", ")) {
        headers.insert("access-control-expose-headers", v);
    }
}

/// Sets `X-Total-Count`, `Link` and the CORS exposure of both.
pub fn set_headers(res: &mut Response, link: Option<String>, total: u64) {
    let headers = res.headers_mut();
    let mut exposed = Vec::new();
    if let Some(link) = link.and_then(|l| HeaderValue::from_str(&l).ok()) {
        headers.insert("link", link);
        exposed.push("Link");
    }
    headers.insert("x-total-count", HeaderValue::from(total));
    exposed.push("X-Total-Count");
    if let Ok(v) = HeaderValue::from_str(&exposed.join(", ")) {
        headers.insert("access-control-expose-headers", v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Config {
        Config::from_lookup(|k| (k == "ROOT_URL").then(|| "http://localhost:3000/".to_string()))
            .unwrap()
    }

    const PATH: &str = "/api/v1/repos/jerrykan/example-repo/issues";
    const BASE: &str = "http://localhost:3000/api/v1/repos/jerrykan/example-repo/issues";

    #[test]
    fn middle_page_has_all_four_links_in_gitea_order() {
        let q = Query::parse(Some("state=all&page=2"));
        let link = link_header(&cfg(), PATH, &q, 100, Page { page: 2, size: 20 }).unwrap();
        assert_eq!(
            link,
            format!(
                "<{BASE}?page=3&state=all>; rel=\"next\",<{BASE}?page=5&state=all>; rel=\"last\",<{BASE}?page=1&state=all>; rel=\"first\",<{BASE}?page=1&state=all>; rel=\"prev\""
            )
        );
    }

    #[test]
    fn first_last_and_past_the_end() {
        let q = Query::parse(Some("state=all"));
        let first = link_header(&cfg(), PATH, &q, 100, Page { page: 1, size: 20 }).unwrap();
        assert_eq!(first.matches("rel=").count(), 2);
        assert!(first.contains("rel=\"next\"") && first.contains("rel=\"last\""));
        for page in [5, 9] {
            let last = link_header(&cfg(), PATH, &q, 100, Page { page, size: 20 }).unwrap();
            assert_eq!(
                last,
                format!(
                    "<{BASE}?page=1&state=all>; rel=\"first\",<{BASE}?page=4&state=all>; rel=\"prev\""
                )
            );
        }
        assert_eq!(
            link_header(&cfg(), PATH, &q, 0, Page { page: 1, size: 20 }),
            None
        );
        assert_eq!(
            link_header(&cfg(), PATH, &q, 20, Page { page: 1, size: 20 }),
            None
        );
    }

    #[test]
    fn open_listings_link_next_while_more_follow_and_never_last() {
        let q = Query::parse(Some("limit=10"));
        let at = |page, more| link_header_open(&cfg(), PATH, &q, Page { page, size: 10 }, more);
        assert_eq!(at(1, false), None);
        assert_eq!(
            at(1, true).unwrap(),
            format!("<{BASE}?limit=10&page=2>; rel=\"next\"")
        );
        assert_eq!(
            at(3, true).unwrap(),
            format!(
                "<{BASE}?limit=10&page=4>; rel=\"next\",<{BASE}?limit=10&page=1>; rel=\"first\",<{BASE}?limit=10&page=2>; rel=\"prev\""
            )
        );
        assert_eq!(
            at(3, false).unwrap(),
            format!(
                "<{BASE}?limit=10&page=1>; rel=\"first\",<{BASE}?limit=10&page=2>; rel=\"prev\""
            )
        );
        let mut res = Response::new(lambda_http::Body::Empty);
        set_open_headers(&mut res, at(1, true), true);
        assert_eq!(res.headers()["x-hasmore"], "true");
        assert!(res.headers().get("x-total-count").is_none());
        assert_eq!(
            res.headers()["access-control-expose-headers"],
            "Link, X-HasMore"
        );
    }

    #[test]
    fn credentials_stay_out_of_links() {
        let q = Query::parse(Some("token=secret&access_token=s2&state=all"));
        let link = link_header(&cfg(), PATH, &q, 100, Page { page: 2, size: 20 }).unwrap();
        assert!(!link.contains("secret") && !link.contains("s2"), "{link}");
        assert!(link.contains("state=all"));
    }

    #[test]
    fn clamps_page_and_limit() {
        let c = cfg();
        let p = |qs| super::super::request::page_of(&Query::parse(Some(qs)), &c);
        assert_eq!(p(""), Page { page: 1, size: 30 });
        assert_eq!(p("page=0&limit=0"), Page { page: 1, size: 30 });
        assert_eq!(p("page=-3&limit=500"), Page { page: 1, size: 50 });
        assert_eq!(p("page=x&limit=y"), Page { page: 1, size: 30 });
        assert_eq!(p("page=3&limit=7"), Page { page: 3, size: 7 });
        assert_eq!(p("page=3&limit=7").offset(), 14);
    }
}
