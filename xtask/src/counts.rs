//! The documents that quote how many routes, path templates and functions
//! there are (docs/operations.md's stack table and guided deploy,
//! template.yaml's metrics parameter,
//! docs/benchmarks.md's metric counts) are held to the route tables here,
//! so a new route cannot leave them stale.

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::FUNCTIONS;

    fn read(path: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn documents_quote_the_route_tables_counts() {
        /// The stream function's metrics.
        const STREAM: usize = 16;
        let routes: usize = FUNCTIONS.iter().map(|f| f.1.len()).sum();
        let paths: BTreeSet<&str> = FUNCTIONS
            .iter()
            .flat_map(|f| f.1.iter().map(|r| r.path))
            .collect();
        // The fallback serves the catch-all route and is a function too.
        let routed = FUNCTIONS.iter().filter(|f| !f.1.is_empty()).count() + 1;
        let functions = FUNCTIONS.len() + 1;
        // Five metrics per function or route (the catch-all included), and
        // the stream consumer's by function only (docs/benchmarks.md,
        // "Custom metrics": per batch, of webhooks and of parked changes).
        let (by_function, by_route) = (5 * routed + STREAM, 5 * (routes + 1) + STREAM);
        let quotes = [
            (
                "docs/operations.md",
                format!(
                    "| {} Lambda permissions | one per route, letting API Gateway invoke its function's `live` alias ({routes} routes and the catch-all) |",
                    routes + 1
                ),
            ),
            (
                "docs/operations.md",
                format!("| {functions} functions, {functions} IAM roles |"),
            ),
            (
                "docs/operations.md",
                format!("**route**, {} times", routes + 1),
            ),
            (
                "template.yaml",
                format!("per function ({by_function} metrics)"),
            ),
            (
                "template.yaml",
                format!("({by_route}: {routes} routes and the fallback"),
            ),
            (
                "docs/benchmarks.md",
                format!(
                    "5 × {routed} functions + {STREAM} of the stream function = **{by_function}**"
                ),
            ),
            (
                "docs/benchmarks.md",
                format!("5 × {} routes + {STREAM} = **{by_route}**", routes + 1),
            ),
            (
                "docs/benchmarks.md",
                format!("hold {routes} (on {} path templates)", paths.len()),
            ),
        ];
        let stale: Vec<_> = quotes
            .iter()
            .filter(|(file, text)| !read(file).contains(text.as_str()))
            .collect();
        assert!(stale.is_empty(), "stale counts, want: {stale:#?}");
    }
}
