//! Everything the docs function serves is prepared here, so it does no
//! work at run time beyond choosing bytes:
//!
//! - docs/openapi.yaml, converted to JSON;
//! - the Swagger UI page (`/api/swagger`) and its assets. Swagger UI's
//!   files come from the `utoipa-swagger-ui-vendored` crate, which ships the
//!   Swagger UI release as a zip inside its package (nothing is downloaded:
//!   Cargo.lock's checksum covers the crate, and [`SWAGGER_UI_FILES`] pins
//!   each file's SHA-256). Every asset is named after a hash of its bytes,
//!   so it can be cached for good. Swagger UI's text files are kept only
//!   gzip-compressed (the zip's own deflate stream in a gzip wrapper, so
//!   nothing is compressed here): that is what browsers are sent, and the
//!   function inflates them for the rare client that takes no gzip. Their
//!   plain bytes would add 1.5 MB to the bootstrap.
//!
//! Writes to OUT_DIR: `openapi.json`, `swagger.html`, the assets, and
//! `assets.rs` (the table `src/ui.rs` includes).

use std::{env, fmt::Write as _, fs, io::Read, path::Path};

use sha2::{Digest, Sha256};

/// The Swagger UI release inside `utoipa-swagger-ui-vendored` 0.2.0.
const SWAGGER_UI: &str = "5.32.6";

/// Swagger UI's files the page loads: (file in `dist/`, content type,
/// SHA-256). The hashes are those of npm's `swagger-ui-dist@5.32.6`, whose
/// files these are byte for byte: a new crate version gets its files
/// compared and its hashes written here.
const SWAGGER_UI_FILES: &[(&str, &str, &str)] = &[
    (
        "swagger-ui-bundle.js",
        "text/javascript; charset=utf-8",
        "4b5a9b35a1adf37f00d39c0bae23cdb37007e2946240ef035137cc85b4d55349",
    ),
    (
        "swagger-ui.css",
        "text/css; charset=utf-8",
        "ca238f7d7c2cf4480c1e77a9c3b9da915ab216e96ffd354e69076560c650c6de",
    ),
    (
        "favicon-32x32.png",
        "image/png",
        "3ed612f41e050ca5e7000cad6f1cbe7e7da39f65fca99c02e99e6591056e5837",
    ),
];

/// Lambda answers at most 6 MB, counted on the JSON envelope (a text body
/// as a JSON string, a binary one in base64); a margin for the headers.
const LARGEST_ENVELOPE_BODY: usize = 5_500_000;

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let manifest = Path::new(&manifest);
    openapi(manifest, out);
    swagger_ui(manifest, out);
}

/// docs/openapi.yaml as JSON, so the function parses no YAML.
fn openapi(manifest: &Path, out: &Path) {
    let source = manifest.join("../../docs/openapi.yaml");
    println!("cargo:rerun-if-changed={}", source.display());
    let text = fs::read_to_string(&source).expect("docs/openapi.yaml");
    let doc: serde_json::Value = serde_yaml::from_str(&text).expect("docs/openapi.yaml is YAML");
    let json = serde_json::to_string(&doc).expect("JSON");
    fs::write(out.join("openapi.json"), json).expect("write openapi.json");
}

/// One asset as served.
struct Asset {
    /// Its source file's name (`swagger-ui.css`).
    file: &'static str,
    /// Its name under `/api/swagger/assets/`: `<stem>.<hash>.<ext>`.
    name: String,
    content_type: &'static str,
    raw: Vec<u8>,
    gzip: Option<Vec<u8>>,
}

impl Asset {
    fn new(
        file: &'static str,
        content_type: &'static str,
        raw: Vec<u8>,
        gzip: Option<Vec<u8>>,
    ) -> Self {
        let hash = hex(&Sha256::digest(&raw));
        let (stem, ext) = file
            .rsplit_once('.')
            .expect("a file name with an extension");
        let name = format!("{stem}.{}.{ext}", &hash[..16]);
        Self {
            file,
            name,
            content_type,
            raw,
            gzip,
        }
    }
}

/// The page and its assets, and the table that serves them.
fn swagger_ui(manifest: &Path, out: &Path) {
    let zip = utoipa_swagger_ui_vendored::SWAGGER_UI_VENDORED;
    let mut assets = Vec::new();
    for &(file, content_type, sha256) in SWAGGER_UI_FILES {
        let entry = zip_entry(zip, &format!("swagger-ui-{SWAGGER_UI}/dist/{file}"));
        let raw = entry.contents();
        assert_eq!(
            hex(&Sha256::digest(&raw)),
            sha256,
            "Swagger UI's {file} is not the pinned one (build.rs SWAGGER_UI_FILES)"
        );
        if content_type.starts_with("text/") {
            assert!(std::str::from_utf8(&raw).is_ok(), "{file} is UTF-8");
        }
        let gzip =
            (content_type.starts_with("text/") && entry.method == DEFLATED).then(|| entry.gzip());
        assets.push(Asset::new(file, content_type, raw, gzip));
    }
    let init = manifest.join("ui/swagger-init.js");
    println!("cargo:rerun-if-changed={}", init.display());
    let raw = fs::read(&init).expect("ui/swagger-init.js");
    assets.push(Asset::new(
        "swagger-init.js",
        "text/javascript; charset=utf-8",
        raw,
        None, // a few hundred bytes
    ));

    // The page names each asset `{file}`; it gets the hashed name.
    let page = manifest.join("ui/swagger.html");
    println!("cargo:rerun-if-changed={}", page.display());
    let mut html = fs::read_to_string(&page).expect("ui/swagger.html");
    for a in &assets {
        let placeholder = format!("{{{}}}", a.file);
        assert!(
            html.contains(&placeholder),
            "ui/swagger.html names {}",
            a.file
        );
        html = html.replace(&placeholder, &a.name);
    }
    assert!(
        !html.contains('{'),
        "ui/swagger.html names an unknown asset"
    );
    fs::write(out.join("swagger.html"), &html).expect("write swagger.html");

    let mut table = String::from(
        "/// Every asset of the page (Swagger UI's and ours).\npub const ASSETS: &[Asset] = &[\n",
    );
    let mut hashes = String::from(
        "/// Each asset's name and the SHA-256 of its plain bytes.\n\
         #[cfg(test)]\npub const PLAIN_SHA256: &[(&str, &str)] = &[\n",
    );
    for a in &assets {
        // Text goes as a JSON string, anything else in base64 (src/ui.rs).
        let envelope = match std::str::from_utf8(&a.raw) {
            Ok(text) if a.content_type.starts_with("text/") => {
                serde_json::to_string(text).expect("JSON").len()
            }
            _ => a.raw.len().div_ceil(3) * 4,
        };
        assert!(
            envelope <= LARGEST_ENVELOPE_BODY,
            "{} would take {envelope} bytes of a Lambda response: too large",
            a.name
        );
        // One form only: gzip when there is one, else the plain bytes.
        let (file, bytes) = match &a.gzip {
            Some(gzip) => (format!("{}.gz", a.name), gzip),
            None => (format!("{}.raw", a.name), &a.raw),
        };
        fs::write(out.join(&file), bytes).expect("write an asset");
        let _ = writeln!(
            table,
            "    Asset {{\n        name: {:?},\n        content_type: {:?},\n        \
             bytes: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{file}\")),\n        \
             gzip: {},\n    }},",
            a.name,
            a.content_type,
            a.gzip.is_some()
        );
        let _ = writeln!(
            hashes,
            "    ({:?}, {:?}),",
            a.name,
            hex(&Sha256::digest(&a.raw))
        );
    }
    table += "];\n";
    // For the tests: what each asset's plain bytes hash to, so the gzip
    // forms can be checked against the pinned files.
    table += &hashes;
    table += "];\n";
    fs::write(out.join("assets.rs"), table).expect("write assets.rs");
}

const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// One file of a zip archive, as stored there.
struct ZipEntry<'a> {
    name: String,
    method: u16,
    crc: u32,
    size: u32,
    data: &'a [u8],
}

impl ZipEntry<'_> {
    /// Its bytes, checked against the archive's CRC and size.
    fn contents(&self) -> Vec<u8> {
        let raw = match self.method {
            STORED => self.data.to_vec(),
            DEFLATED => {
                let mut raw = Vec::with_capacity(self.size as usize);
                flate2::read::DeflateDecoder::new(self.data)
                    .read_to_end(&mut raw)
                    .unwrap_or_else(|e| panic!("zip: {}: {e}", self.name));
                raw
            }
            m => panic!("zip: {}: compression method {m}", self.name),
        };
        let mut crc = flate2::Crc::new();
        crc.update(&raw);
        assert!(
            crc.sum() == self.crc && raw.len() == self.size as usize,
            "zip: {}: CRC or size differs from the archive's",
            self.name
        );
        raw
    }

    /// A gzip file (RFC 1952) around the entry's deflate stream: gzip and
    /// zip store the same stream, CRC-32 and size.
    fn gzip(&self) -> Vec<u8> {
        // Magic, deflate, no flags, no time, no extra flags, unknown OS.
        let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        gz.extend_from_slice(self.data);
        gz.extend_from_slice(&self.crc.to_le_bytes());
        gz.extend_from_slice(&self.size.to_le_bytes());
        gz
    }
}

/// Finds `name` through the archive's central directory. Only what this
/// archive uses is read (no ZIP64, no encryption): it is a fixed input,
/// checked by Cargo.lock's checksum of the crate, and every file taken
/// from it is checked again by CRC and SHA-256.
fn zip_entry<'a>(zip: &'a [u8], name: &str) -> ZipEntry<'a> {
    let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([zip[i], zip[i + 1], zip[i + 2], zip[i + 3]]);
    // The end-of-central-directory record: its signature, searched from
    // the end (an archive comment may follow it).
    let end = (0..=zip.len() - 22)
        .rev()
        .find(|&i| u32_at(i) == 0x0605_4b50)
        .expect("zip: no end of central directory");
    let count = u16_at(end + 10);
    let mut at = u32_at(end + 16) as usize;
    assert!(
        count != 0xffff && at != 0xffff_ffff,
        "zip: ZIP64 is not read"
    );
    for _ in 0..count {
        assert_eq!(u32_at(at), 0x0201_4b50, "zip: broken central directory");
        let name_len = u16_at(at + 28) as usize;
        let skip = 46 + name_len + u16_at(at + 30) as usize + u16_at(at + 32) as usize;
        if &zip[at + 46..at + 46 + name_len] == name.as_bytes() {
            assert_eq!(u16_at(at + 8) & 1, 0, "zip: {name} is encrypted");
            let local = u32_at(at + 42) as usize;
            assert_eq!(
                u32_at(local),
                0x0403_4b50,
                "zip: {name}: broken local header"
            );
            let start = local + 30 + u16_at(local + 26) as usize + u16_at(local + 28) as usize;
            let compressed = u32_at(at + 20) as usize;
            return ZipEntry {
                name: name.into(),
                method: u16_at(at + 10),
                crc: u32_at(at + 16),
                size: u32_at(at + 24),
                data: &zip[start..start + compressed],
            };
        }
        at += skip;
    }
    panic!("zip: {name} is not in the archive");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
