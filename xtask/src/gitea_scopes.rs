//! Which token scope category each tracker route needs, as Gitea's API
//! router (`routers/api/v1/api.go`) declares it with `tokenRequiresScopes`
//! on its route groups, transcribed as path rules. A test holds every
//! route of the Gitea dialect to them, so a new route cannot take another
//! category by mistake (pull requests once took the issue scope: Gitea
//! puts `/repos/{owner}/{repo}/pulls…` under the repository group).

#[cfg(test)]
mod tests {
    use shared::accounts::scope::Category;

    use crate::{DEPLOY, FUNCTIONS};

    /// Gitea's category for a path (API Gateway syntax), or `None` for
    /// paths outside its scoped groups (version, settings, health).
    fn gitea(path: &str) -> Option<Category> {
        let rest = path.strip_prefix("/api/v1")?;
        let segments: Vec<&str> = rest.split('/').skip(1).collect();
        match segments.as_slice() {
            // The issue group: search, and a repository's issues, labels
            // and milestones.
            ["repos", "issues", "search"] => Some(Category::Issue),
            ["repos", _, _, "issues" | "labels" | "milestones", ..] => Some(Category::Issue),
            // Everything else under a repository, pull requests included.
            ["repos", ..] => Some(Category::Repository),
            ["orgs", ..] | ["teams", ..] => Some(Category::Organization),
            ["admin", ..] => Some(Category::Admin),
            // `/user/repos` is under both the user and the repository
            // categories in Gitea; one category is declared here.
            ["user", "repos"] => Some(Category::Repository),
            // A user's organisations are in Gitea's organisation group.
            ["user", "orgs"] | ["users", _, "orgs"] => Some(Category::Organization),
            ["user" | "users", ..] => Some(Category::User),
            _ => None,
        }
    }

    #[test]
    fn every_tracker_route_takes_gitea_s_scope_category() {
        let mut wrong = Vec::new();
        let mut checked = 0;
        for (function, routes, _) in FUNCTIONS {
            if DEPLOY.contains(function) {
                continue;
            }
            for r in *routes {
                let Some(declared) = r.guard.category() else {
                    continue;
                };
                let Some(want) = gitea(r.path) else {
                    continue;
                };
                checked += 1;
                if declared != want {
                    wrong.push(format!(
                        "{} {}: {declared:?}, Gitea: {want:?}",
                        r.method, r.path
                    ));
                }
            }
        }
        assert!(checked > 60, "only {checked} routes checked");
        assert!(wrong.is_empty(), "scope categories: {wrong:#?}");
    }

    #[test]
    fn pull_routes_are_repository_routes() {
        let path = "/api/v1/repos/{owner}/{repo}/pulls/{index}/merge";
        assert_eq!(gitea(path), Some(Category::Repository));
        assert_eq!(
            gitea("/api/v1/repos/{owner}/{repo}/issues/{index}"),
            Some(Category::Issue)
        );
        assert_eq!(gitea("/api/v1/repos/issues/search"), Some(Category::Issue));
        // Reactions are in Gitea's issue group, on comments too.
        for path in [
            "/api/v1/repos/{owner}/{repo}/issues/{index}/reactions",
            "/api/v1/repos/{owner}/{repo}/issues/comments/{id}/reactions",
        ] {
            assert_eq!(gitea(path), Some(Category::Issue), "{path}");
        }
        assert_eq!(gitea("/api/v1/version"), None);
    }
}
