//! Every route declares what it may do on an archived repository
//! (`shared::http::Archived`); the compiler makes it declare something, and
//! this test that a write under a repository is not declared free by
//! mistake.

#[cfg(test)]
mod tests {
    use shared::http::Archived;

    use crate::FUNCTIONS;

    /// What a route should declare.
    fn expected(method: &str, path: &str) -> Archived {
        let repo = "/api/v1/repos/{owner}/{repo}";
        let administers = (path == repo && matches!(method, "PATCH" | "DELETE"))
            || path.starts_with(&format!("{repo}/collaborators/"))
            || path.starts_with(&format!("{repo}/hooks"))
            || path.starts_with(&format!("{repo}/topics"))
            || path.starts_with("/api/v1/teams/{id}/repos/");
        match method {
            "GET" | "HEAD" => Archived::Free,
            _ if administers => Archived::Administration,
            _ if path.starts_with(&format!("{repo}/")) => Archived::Locked,
            _ => Archived::Free,
        }
    }

    #[test]
    fn writes_under_a_repository_are_locked_or_administration() {
        let mut wrong = Vec::new();
        for (_, routes, _) in FUNCTIONS {
            for r in *routes {
                let want = expected(r.method, r.path);
                if r.archived != want {
                    wrong.push(format!(
                        "{} {}: {:?}, want {want:?}",
                        r.method, r.path, r.archived
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
