//! Stored items are read leniently. During a gradual deploy old and new
//! code read the same items (docs/operations.md, "Releases"), so a record
//! type that refused attributes it does not know would fail on the first
//! item new code wrote. `deny_unknown_fields` is for request bodies only,
//! which the code names after Gitea's `*Option` types; this test holds
//! every use to that.

#[cfg(test)]
mod tests {
    use crate::sources::rust_files;

    /// The name of the first struct or enum declared in `text`.
    fn next_type(text: &str) -> Option<&str> {
        let at = ["struct ", "enum "]
            .iter()
            .filter_map(|k| text.find(k).map(|i| i + k.len()))
            .min()?;
        let rest = &text[at..];
        let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_')?;
        Some(&rest[..end])
    }

    #[test]
    fn only_request_bodies_refuse_unknown_fields() {
        let files = rust_files(&["crates", "shared/src", "functions", "tools"]);
        assert!(files.len() > 100, "found {} files", files.len());
        let mut strict = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for (at, _) in text.match_indices("deny_unknown_fields") {
                let name = next_type(&text[at..]).unwrap_or("?");
                if !name.ends_with("Option") {
                    strict.push(format!("{}: {name}", file.display()));
                }
            }
        }
        assert!(
            strict.is_empty(),
            "types that refuse unknown attributes but are no request body: {strict:#?}"
        );
    }
}
