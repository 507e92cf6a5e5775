//! One store boundary (docs/architecture.md, rule 2): DynamoDB
//! expressions, condition strings and the SDK's types appear only in
//! `crates/store` (and `tools/stream-pump`, which reads the Streams API).
//! Every other crate calls the store's typed operations (`get_as`,
//! `put_when`, `change`, `query_page`, `Tx::check`, ...) with typed
//! conditions, changes and queries (`db::Cond`, `db::Change`,
//! `db::Query`). The store's builder-taking calls are crate-private, so
//! the compiler refuses them elsewhere; this check catches the text.

#[cfg(test)]
mod tests {
    use crate::sources::{root, rust_files};

    /// What in `text` (non-test Rust source) belongs to the store: one
    /// line per finding.
    fn store_code(text: &str) -> Vec<String> {
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        code.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .filter(|l| {
                l.contains("_expression(")
                    || l.contains("attribute_exists")
                    || l.contains("attribute_not_exists")
                    || l.contains("aws_sdk_dynamodb::")
            })
            .map(|l| l.trim().to_string())
            .collect()
    }

    /// Tests may plant what an older release wrote: they are not read.
    fn is_test(rel: &str) -> bool {
        rel.contains("/tests/") || rel.ends_with("/tests.rs")
    }

    #[test]
    fn only_the_store_writes_dynamodb_requests() {
        let root = root();
        let files = rust_files(&[
            "crates",
            "shared/src",
            "functions",
            "tools/ops",
            "tools/runner",
        ]);
        assert!(files.len() > 200, "found {} files", files.len());
        let mut outside = Vec::new();
        for file in &files {
            let rel = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with("crates/store/") || is_test(&rel) {
                continue;
            }
            let found = store_code(&std::fs::read_to_string(file).unwrap());
            if let Some(first) = found.first() {
                outside.push(format!("{rel}: {first}"));
            }
        }
        assert!(
            outside.is_empty(),
            "DynamoDB requests outside the store (use a typed operation of `store::db`): {outside:#?}"
        );
    }

    #[test]
    fn a_planted_expression_is_found() {
        let planted = "async fn f(db: &Db) {\n    db.delete(|d| d.condition_expression(\"attribute_exists(pk)\"));\n}\n";
        assert_eq!(store_code(planted).len(), 1);
        assert_eq!(
            store_code("use aws_sdk_dynamodb::types::AttributeValue;").len(),
            1
        );
        // Comments and tests do not count.
        assert!(store_code("// attribute_exists(pk)\n#[cfg(test)]\nmod t { fn g() { x.key_condition_expression(\"a\"); } }").is_empty());
    }
}
