//! What each route declares, beside its method, path and handler. The
//! request lifecycle ([`super::handle`]) enforces every declaration, so a
//! new route gets the checks by being written down, not by its handler
//! remembering them. [`routes!`](crate::routes) requires every field: a
//! route that leaves one out does not compile.

use crate::{
    auth::scope::{Ability, Category},
    db::Budget,
};

/// What a route demands of a token before its handler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Gitea scope category; GET needs `read:<c>`, other methods `write:<c>`.
    Scope(Category),
    /// As `Scope`, for routes Gitea guards with `reqToken()` whatever the
    /// method (teams): anonymous callers get 401 before anything is read,
    /// so no answer of theirs depends on what exists.
    SignedIn(Category),
    /// Coolify ability (`root` passes every one).
    Ability(Ability),
    /// Every one of these Coolify abilities (`root` passes): for what
    /// grants more than its method suggests (a runner credential receives
    /// every secret of the deployments it claims).
    Abilities(&'static [Ability]),
    /// A path both APIs serve (Gitea's and Coolify's `/teams/{id}`): a
    /// Coolify client's token (abilities only, `Scopes::deploy_only`)
    /// needs the ability, as `Ability`, and the handler answers as
    /// Coolify; any other caller is checked as `SignedIn(category)`.
    ScopeOrAbility(Category, Ability),
    /// Anyone, signed in or not, whatever the token's scopes: the meta
    /// endpoints clients call before anything else (version, settings,
    /// health). Credentials that are sent must still be valid, unless the
    /// function may not read the table (the docs), which reads none.
    Open,
    /// A runner's credential (`Bearer runner_<hex>`), and nothing else:
    /// the runner protocol. Runners are refused on every other route.
    Runner,
}

impl Guard {
    /// The guard that applies to `caller`: `ScopeOrAbility` becomes the
    /// ability for a Coolify client's token, `SignedIn` for the others.
    pub fn for_caller(self, caller: &crate::auth::Caller) -> Guard {
        match self {
            Guard::ScopeOrAbility(category, ability) => {
                if coolify_client(caller) {
                    Guard::Ability(ability)
                } else {
                    Guard::SignedIn(category)
                }
            }
            other => other,
        }
    }

    /// The Gitea scope category the route needs, if any.
    pub fn category(self) -> Option<Category> {
        match self {
            Guard::Scope(c) | Guard::SignedIn(c) | Guard::ScopeOrAbility(c, _) => Some(c),
            Guard::Ability(_) | Guard::Abilities(_) | Guard::Open | Guard::Runner => None,
        }
    }

    /// Whether the route is the deploy API's, guarded by abilities.
    pub fn is_ability(self) -> bool {
        matches!(self, Guard::Ability(_) | Guard::Abilities(_))
    }
}

/// Whether the caller's token is a Coolify client's (abilities and no
/// Gitea scope): the paths both APIs serve answer it as Coolify does.
pub fn coolify_client(caller: &crate::auth::Caller) -> bool {
    caller
        .principal()
        .and_then(|p| p.scopes())
        .is_some_and(|s| s.deploy_only())
}

/// How the visibility of what a route reads, changes or creates is found,
/// for tokens limited to public things (`public-only`). Resolved only for
/// such tokens; every other caller pays nothing for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sees {
    /// The caller's own account.
    Caller,
    /// Like `Caller`, for changes that reach every repository the caller
    /// owns (their hooks): for writes, they must also own no private one.
    CallerWide,
    /// Like `CallerWide`, for reads too: what the hooks of every
    /// repository the caller owns were sent (their deliveries' payloads),
    /// read only while the caller owns no private one.
    CallerAll,
    /// The whole site (its system hooks, which hear of every repository):
    /// never for `public-only` tokens.
    Site,
    /// A user or organisation named by this path parameter.
    Owner(&'static str),
    /// Like `Owner`, for changes that reach every repository of the
    /// organisation (its teams, labels and blocks): for writes, it must
    /// also hold no private repository.
    OrgWide(&'static str),
    /// Like `OrgWide`, for reads too: what the organisation's hooks were
    /// sent of every repository of it (their deliveries' payloads), read
    /// only while it holds no private repository.
    OrgAll(&'static str),
    /// A repository named by these path parameters (owner, name).
    Repo(&'static str, &'static str),
    /// A team named by this path parameter (its id).
    Team(&'static str),
    /// The body's `private` flag: `true` creates a private repository.
    BodyPrivate,
    /// The body's `visibility`: anything but `public` creates a private
    /// user or organisation.
    BodyVisibility,
    /// The handler lists only what the caller's token may see (search).
    Filtered,
    /// Deploy resources, which are always private to their team.
    DeployTeam,
    /// Nothing of anyone's: facts about the deployment itself.
    Nothing,
}

impl Sees {
    /// `/repos/{owner}/{repo}/...`
    pub const REPO: &'static [Sees] = &[Sees::Repo("owner", "repo")];
    /// Every deploy route.
    pub const DEPLOY: &'static [Sees] = &[Sees::DeployTeam];
}

/// Size limits: of the request body, what a list may leave out to stay
/// under Lambda's response limit, and what the request may read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Largest request body in bytes (the configured `MAX_BODY_BYTES` is a
    /// ceiling over every route).
    pub body: usize,
    /// Fields of each list element (`a.b` reaches into an object, or into
    /// each object of an array) dropped, all at once, when the whole
    /// response would pass the limit.
    pub omit: &'static [&'static str],
    /// If still too large: the only fields each element keeps.
    pub keep: &'static [&'static str],
    /// The most the request may read (refused with 422 past it).
    pub reads: Budget,
}

impl Limits {
    /// Routes whose bodies are a few small fields (or none).
    pub const SMALL: Limits = Limits::body(64 * 1024);
    /// Routes that take one long text (issue and milestone bodies).
    pub const TEXT: Limits = Limits::body(512 * 1024);
    /// Deploy routes that take inline Dockerfiles and compose files.
    pub const FILES: Limits = Limits::body(1024 * 1024);

    /// What any route may read: a handful of items, or a bounded clean-up.
    pub const READS: Budget = Budget {
        calls: 300,
        read_units: 5_000.0,
    };

    /// What a listing may read: its walk through the index (see
    /// `issues::index::find::LIMITS`) and its page, whose items are at most
    /// the page size times the largest item.
    pub const LISTING: Budget = Budget {
        calls: 150,
        read_units: 3_000.0,
    };

    pub const fn body(bytes: usize) -> Limits {
        Limits {
            body: bytes,
            omit: &[],
            keep: &[],
            reads: Limits::READS,
        }
    }

    /// The same limits with another read budget.
    pub const fn reading(self, reads: Budget) -> Limits {
        Limits { reads, ..self }
    }

    /// An issue or pull-request list: bodies, refs and the descriptions of
    /// its milestone and labels may be left out.
    pub const ISSUES: Limits =
        Limits::list(&["body", "ref", "milestone.description", "labels.description"]);

    /// A pull-request list: bodies and the descriptions of its milestone
    /// and labels may be left out.
    pub const PULLS: Limits =
        Limits::list(&["body", "milestone.description", "labels.description"]);

    /// A list: small query-only requests; `omit` fields may be left out.
    pub const fn list(omit: &'static [&'static str]) -> Limits {
        Limits {
            body: 64 * 1024,
            omit,
            keep: &[],
            reads: Limits::LISTING,
        }
    }
}

/// What a route may do on an archived repository. Gitea documents an
/// archived repository as read-only, but its router guards only some
/// writes (`mustNotBeArchived`); here every route declares which it is,
/// and `extract::repo_access`, which every repository route passes
/// through, refuses `Locked` ones with 423.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Archived {
    /// Changes the repository's content (issues, pull requests, comments,
    /// labels, milestones, deadlines, dependencies, reviews, locks): 423.
    Locked,
    /// Administers the repository (its settings, unarchiving included,
    /// deletion, collaborators, team grants): allowed.
    Administration,
    /// Reads, or names no repository.
    Free,
}

/// One entry of a function's route table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Route {
    pub method: &'static str,
    /// Path template in API Gateway syntax (`/api/v1/users/{username}`).
    pub path: &'static str,
    pub guard: Guard,
    /// What it may do on an archived repository.
    pub archived: Archived,
    /// Where the visibility of the route's targets comes from (at least one).
    pub sees: &'static [Sees],
    /// Whether the route honours `Idempotency-Key` (creates do).
    pub idempotent: bool,
    pub limits: Limits,
}
