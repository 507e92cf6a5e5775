//! The Swagger UI page (`/api/swagger`), as Gitea serves its own, and its
//! assets (`/api/swagger/assets/{name}`), all from this binary: the page
//! works air-gapped, and the other functions carry none of it.
//!
//! build.rs prepares everything: the page names each asset by a hash of
//! its bytes, so an asset never changes under its name and is cached for a
//! year; the page itself is revalidated, so a new deployment's page (and
//! through it, its assets) is seen at once. Paths in the page are relative
//! to it, so it works behind a stage prefix or a custom domain.
//!
//! Sizes: Swagger UI's bundle is about 1.5 MB, 0.4 MB gzip-compressed.
//! Its text files are embedded in gzip form only, which keeps 1.5 MB out
//! of the bootstrap (Lambda's code size and cold start). Clients that
//! accept gzip (every browser) get those bytes as they are (0.55 MB in
//! base64): API Gateway's HTTP APIs compress nothing. Any other client gets
//! them inflated on the spot (milliseconds, for a file it then caches
//! for a year) rather than a 406, so plain `curl` and scripts still work;
//! Lambda carries that as a JSON string of about 1.6 MB, under its 6 MB
//! limit (build.rs checks every asset).

use lambda_http::{
    Body,
    http::{HeaderMap, HeaderValue, header},
};
use shared::{
    Error, Result,
    http::{Ctx, Response},
};

/// One file of the page, as build.rs wrote it.
pub struct Asset {
    /// `<stem>.<hash>.<ext>`, the last segment of its path.
    pub name: &'static str,
    pub content_type: &'static str,
    /// The file, gzip-compressed if `gzip`, else as it is.
    pub bytes: &'static [u8],
    pub gzip: bool,
}

impl Asset {
    /// The file as it is (inflated if stored gzip-compressed).
    pub fn plain(&self) -> Result<Vec<u8>> {
        if !self.gzip {
            return Ok(self.bytes.to_vec());
        }
        let mut plain = Vec::with_capacity(self.bytes.len() * 4);
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(self.bytes), &mut plain)
            .map_err(|e| Error::Internal(format!("{}: {e}", self.name)))?;
        Ok(plain)
    }
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The page, its asset names filled in by build.rs.
pub const PAGE: &str = include_str!(concat!(env!("OUT_DIR"), "/swagger.html"));

/// What the page may load: only this deployment's own scripts, styles and
/// images (Swagger UI's stylesheet draws its icons from `data:` URLs), and
/// only this deployment's API ("Try it out"). No inline script or style.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// A year, for bytes that never change under their name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `GET /api/swagger`: the HTML page.
pub async fn page(_cx: &Ctx) -> Result<Response> {
    let mut res = Response::new(Body::Text(PAGE.into()));
    let headers = res.headers_mut();
    set(headers, header::CONTENT_TYPE, "text/html; charset=utf-8");
    set(headers, header::CACHE_CONTROL, "no-cache");
    set(
        headers,
        header::CONTENT_SECURITY_POLICY,
        CONTENT_SECURITY_POLICY,
    );
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(headers, header::REFERRER_POLICY, "no-referrer");
    Ok(res)
}

/// `GET /api/swagger/assets/{name}`: one asset, gzip-compressed when the
/// client accepts it; an unknown name is a 404.
pub async fn asset(cx: &Ctx) -> Result<Response> {
    let name = cx.param("name");
    let asset = ASSETS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(Error::not_found)?;
    let gzip = asset.gzip && accepts_gzip(cx.headers.get_all(header::ACCEPT_ENCODING));
    let body = if gzip {
        Body::Binary(asset.bytes.to_vec())
    } else if asset.content_type.starts_with("text/") {
        // Text stays text: Lambda carries it as it is, not in base64
        // (build.rs checked it is UTF-8).
        Body::Text(String::from_utf8_lossy(&asset.plain()?).into_owned())
    } else {
        Body::Binary(asset.plain()?)
    };
    let mut res = Response::new(body);
    let headers = res.headers_mut();
    set(headers, header::CONTENT_TYPE, asset.content_type);
    set(headers, header::CACHE_CONTROL, IMMUTABLE);
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if asset.gzip {
        set(headers, header::VARY, "Accept-Encoding");
    }
    if gzip {
        set(headers, header::CONTENT_ENCODING, "gzip");
    }
    Ok(res)
}

fn set(headers: &mut HeaderMap, name: header::HeaderName, value: &'static str) {
    headers.insert(name, HeaderValue::from_static(value));
}

/// Whether `Accept-Encoding` admits gzip (RFC 9110 §12.5.3): `gzip`,
/// `x-gzip` or `*` with a quality above zero, unless gzip itself is given
/// a zero quality.
pub fn accepts_gzip<'a>(values: impl IntoIterator<Item = &'a HeaderValue>) -> bool {
    let mut gzip = None;
    let mut any = None;
    for value in values {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match coding.as_str() {
                "gzip" | "x-gzip" => gzip = Some(quality > 0.0),
                "*" => any = Some(quality > 0.0),
                _ => {}
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_chosen_as_accept_encoding_says() {
        // (Accept-Encoding values, gzip accepted)
        let rows: &[(&[&str], bool)] = &[
            (&[], false),
            (&["gzip"], true),
            (&["gzip, deflate, br, zstd"], true),
            (&["br", "GZIP"], true),
            (&["x-gzip"], true),
            (&["identity"], false),
            (&["br;q=1.0, gzip;q=0.5"], true),
            (&["gzip;q=0"], false),
            (&["gzip; q=0.000"], false),
            (&["*"], true),
            (&["*;q=0"], false),
            (&["*, gzip;q=0"], false),
            (&["*;q=0, gzip"], true),
            (&["deflate"], false),
        ];
        for (values, want) in rows {
            let values: Vec<HeaderValue> = values
                .iter()
                .map(|v| HeaderValue::from_str(v).unwrap())
                .collect();
            assert_eq!(accepts_gzip(&values), *want, "{values:?}");
        }
    }

    #[test]
    fn the_page_names_only_assets_served_here() {
        let mut named = 0;
        for (i, _) in PAGE.match_indices("swagger/assets/") {
            let rest = &PAGE[i + "swagger/assets/".len()..];
            let name = &rest[..rest.find('"').unwrap()];
            assert!(ASSETS.iter().any(|a| a.name == name), "{name}");
            named += 1;
        }
        assert_eq!(named, ASSETS.len(), "each asset once");
        assert!(!PAGE.contains("//"), "no absolute URL in the page");
        assert!(PAGE.contains(r#"data-url="../swagger.v1.json""#));
    }

    #[test]
    fn gzip_forms_hold_the_pinned_bytes() {
        use sha2::{Digest, Sha256};
        assert_eq!(PLAIN_SHA256.len(), ASSETS.len());
        for (a, (name, sha256)) in ASSETS.iter().zip(PLAIN_SHA256) {
            assert_eq!(a.name, *name);
            let plain = a.plain().unwrap();
            assert_eq!(hex::encode(Sha256::digest(&plain)), *sha256, "{name}");
            if a.gzip {
                assert!(a.bytes.len() < plain.len() / 2, "{name} compresses");
            }
        }
        let bundle = ASSETS.iter().find(|a| a.name.contains("bundle")).unwrap();
        assert!(bundle.gzip, "Swagger UI's bundle is kept gzip-compressed");
    }
}
