//! Listings read the table as it is. Once a write answered, the next
//! listing of issues, pull requests or comments shows it, as Gitea's do
//! (they read its database); only word search (`q`) may trail. A global
//! secondary index is never strongly consistent on AWS, and DynamoDB Local
//! updates them at once, so black-box tests alone cannot catch a listing
//! that reads one: this test holds the code that serves those listings to
//! reads that can be strongly consistent (base-table keys and queries,
//! with `ConsistentRead`: `db::Query::table` asks for it unless told
//! otherwise), and the black-box tests
//! (`tests/tests/read_your_writes.rs`) hold the stream back while they
//! write and read, which catches a listing that waits for it.

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The files that serve listings of issues, pull requests and comments
    /// (under `crates/tracker/src/issues/`), and what renders their pages.
    const LISTINGS: &[&str] = &[
        "search.rs",
        "pull_list.rs",
        "views.rs",
        "comments/listing.rs",
        "index/audience.rs",
        "index/counts.rs",
        "index/cursor.rs",
        "index/overlay.rs",
        "index/pending.rs",
        "index/query.rs",
        "index/walk.rs",
        "index/find/mod.rs",
        "index/find/page.rs",
        "index/find/plan.rs",
        "index/find/run.rs",
        "index/find/sources.rs",
        // The repository lists across owners (`/user/repos`, `/repos/search`).
        "../repos/lists.rs",
    ];

    /// What in `text` (a listing's source) may read an older state than
    /// the table's: one line per finding.
    fn stale_reads(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for bad in [
                "index_name(",
                "Query::index(",
                "INDEXES",
                "gsi1",
                "gsi2",
                "Consistency::Eventual",
                "consistent_read(false)",
            ] {
                if code.contains(bad) {
                    out.push(format!("line {}: {bad}", n + 1));
                }
            }
        }
        // Every query of the table states its consistency: a query is
        // eventually consistent unless it asks.
        for (at, _) in text.match_indices(".query(|") {
            let call = &text[at..];
            let end = call.find(".await").unwrap_or(call.len());
            if !call[..end].contains("consistent_read(true)") {
                let line = text[..at].lines().count();
                out.push(format!(
                    "line {line}: a query without consistent_read(true)"
                ));
            }
        }
        out
    }

    #[test]
    fn listings_read_only_what_can_be_strongly_consistent() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/tracker/src/issues");
        let mut found = Vec::new();
        for file in LISTINGS {
            let path = root.join(file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (moved? update LISTINGS)", path.display()));
            for f in stale_reads(&text) {
                found.push(format!("crates/tracker/src/issues/{file}: {f}"));
            }
        }
        assert!(
            found.is_empty(),
            "listings must show the table as it is (no index, no eventually consistent read): {found:#?}"
        );
    }

    #[test]
    fn a_planted_index_read_or_eventual_read_is_found() {
        let gsi = r#"
            let page = db
                .query(|q| {
                    q.index_name("gsi1")
                        .key_condition_expression("gsi1pk = :pk")
                        .consistent_read(true)
                })
                .await?;
        "#;
        assert_eq!(stale_reads(gsi).len(), 3, "{:?}", stale_reads(gsi));
        let typed = "let page = db.query_page(Query::index(INDEXES[0], pk)).await?;";
        assert_eq!(stale_reads(typed).len(), 2, "{:?}", stale_reads(typed));
        let eventual = "db.batch_get_many(keys, None, Consistency::Eventual).await?;";
        assert_eq!(stale_reads(eventual).len(), 1);
        let unstated = r#"
            let out = db
                .query(|q| q.key_condition_expression("pk = :pk"))
                .await?;
        "#;
        assert_eq!(stale_reads(unstated).len(), 1);
        let fine = r#"
            // Not gsi1: the base table.
            let out = db
                .query(|q| q.key_condition_expression("pk = :pk").consistent_read(true))
                .await?;
            db.batch_get_many(keys, None, Consistency::Strong).await?;
        "#;
        assert!(stale_reads(fine).is_empty(), "{:?}", stale_reads(fine));
    }
}
