//! Embeds docs/openapi.yaml as JSON, converted once at build time so the
//! function parses no YAML at run time.

fn main() {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.yaml");
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("docs/openapi.yaml");
    let doc: serde_json::Value = serde_yaml::from_str(&text).expect("docs/openapi.yaml is YAML");
    let out =
        std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("openapi.json");
    std::fs::write(out, serde_json::to_string(&doc).expect("JSON")).expect("write openapi.json");
}
