//! The two issue listings: one repository's issues
//! (`GET /repos/{owner}/{repo}/issues`) and the search across every
//! repository the caller may read (`GET /repos/issues/search`). The query
//! parameters parse into the index's [`Checks`] here (pure rules at the
//! top, unit tested); [`index::find`] reads the table.

use std::collections::HashMap;

pub use super::params::{Params, instant};
use super::{
    Error, IssueRecord, Result,
    index::{
        self,
        audience::{self, Narrowing},
        cursor,
        find::{Ask, Mine},
        lists::{Relation, Scope},
        overlay::Marks,
        query::{AnyOf, Checks, Kinds, Order, Source},
    },
    rules::readable_kinds,
};
use crate::milestones;
use crate::{
    accounts::{
        names::Visibility,
        teams::{self, TeamRecord},
        users::{self, UserRecord},
    },
    auth::Caller,
    db::Db,
    labels::{self, Scope as LabelScope},
    page::Page,
    repos::{
        RepoRecord,
        access::{Permission, RepoContext, Unit},
        scope::Viewer,
    },
    words,
};

/// Search answers at most this many results (`page` × `limit`), as
/// GitHub's search and Elasticsearch's `max_result_window` do.
pub const RESULT_WINDOW: usize = 1000;

/// Most names a `labels` or `milestones` filter takes.
pub const MAX_NAMES: usize = 10;

/// `state`: open (default, and unknown values), closed, or all.
pub fn states(raw: Option<&str>) -> Vec<bool> {
    match raw.map(str::trim) {
        Some("closed") => vec![true],
        Some("all") => vec![false, true],
        _ => vec![false],
    }
}

/// `q`: the words every match holds (none: no text filter).
pub fn query_words(raw: Option<&str>) -> Result<Vec<String>> {
    words::query(raw)
        .map(Option::unwrap_or_default)
        .map_err(|e| Error::Query {
            field: "q",
            why: e.to_string(),
        })
}

/// Whether a query searches words: those trail writes, as Gitea's indexer
/// does, so they read no pending marks (nor answer 503 while many wait);
/// a number in `q` reads the table like no `q` at all.
fn by_words(words: &[String]) -> bool {
    words.iter().any(|w| !w.bytes().all(|b| b.is_ascii_digit()))
}

/// Comma-separated list entries, trimmed, empty ones dropped.
pub fn entries(raw: Option<&str>) -> Vec<String> {
    raw.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A list of names, at most [`MAX_NAMES`] distinct.
fn names(q: Params, field: &'static str) -> Result<Vec<String>> {
    let mut out = entries(q.get(field));
    out.dedup();
    if out.len() > MAX_NAMES {
        return Err(Error::Query {
            field,
            why: format!("at most {MAX_NAMES} names (got {})", out.len()),
        });
    }
    Ok(out)
}

/// Gitea's boolean query values (strconv.ParseBool); anything else is false.
pub fn flag(raw: Option<&str>) -> bool {
    matches!(raw, Some("1" | "t" | "T" | "true" | "TRUE" | "True"))
}

/// A repository listing's `type`: naming a kind the caller cannot read is
/// a 404, as is reading neither.
pub fn repo_kinds(raw: Option<&str>, p: &Permission) -> Result<Vec<bool>> {
    let kinds = match raw {
        Some("issues") if p.can_read(Unit::Issues) => vec![false],
        Some("pulls") if p.can_read(Unit::Pulls) => vec![true],
        Some("issues") | Some("pulls") => return Err(Error::Hidden),
        _ => readable_kinds(p),
    };
    if kinds.is_empty() {
        return Err(Error::Hidden);
    }
    Ok(kinds)
}

fn kinds_of(kinds: &[bool]) -> Kinds {
    Kinds {
        issues: kinds.contains(&false),
        pulls: kinds.contains(&true),
    }
}

/// One page of a listing, with the repositories its issues belong to.
pub struct Listed {
    pub shown: Vec<IssueRecord>,
    pub total: u64,
    pub repos: HashMap<i64, RepoRecord>,
}

/// A user named by a filter, if the caller may know they exist: one the
/// caller may not see (a private or limited user or organisation) is
/// answered exactly as a missing one, so a filter tells nobody who exists.
pub async fn visible_user(db: &Db, caller: &Caller, login: &str) -> Result<Option<UserRecord>> {
    let Some(u) = users::get(db, login).await? else {
        return Ok(None);
    };
    if u.visibility == Visibility::Public {
        return Ok(Some(u));
    }
    let viewer = Viewer::load(db, caller).await?;
    Ok(owner_visible(&viewer, &u).then_some(u))
}

/// A user-name filter: the user must exist, for the caller.
async fn user_filter(
    db: &Db,
    caller: &Caller,
    q: Params<'_>,
    name: &str,
) -> Result<Option<String>> {
    match q.given(name) {
        None => Ok(None),
        Some(login) => match visible_user(db, caller, login).await? {
            Some(u) => Ok(Some(crate::name::fold(&u.name))),
            None => Err(Error::NoSuchUser(login.to_string())),
        },
    }
}

/// The identity of a listing for cursors: the caller (and whether their
/// token sees private things), the route and the query.
fn cursor_key(caller: &Caller, route: &str, q: Params) -> String {
    let who = caller
        .principal()
        .map_or("-".to_string(), |p| p.user.id.to_string());
    let public_only = if caller.public_only() { "p" } else { "" };
    cursor::key(&[&who, public_only, route, &q.identity()])
}

/// `GET /repos/{owner}/{repo}/issues`: the seed's filters, newest first.
/// The names the query refers to (users, labels, milestones) are read in
/// one wave; their errors keep the order of the checks.
pub async fn repo_issues(
    db: &Db,
    caller: &Caller,
    ctx: &RepoContext,
    q: Params<'_>,
    page: Page,
) -> Result<Listed> {
    let kinds = repo_kinds(q.get("type"), &ctx.perm)?;
    let since = instant(q, "since")?;
    let before = instant(q, "before")?;
    let words = query_words(q.get("q"))?;
    let label_names = names(q, "labels")?;
    let wanted = names(q, "milestones")?;
    let label_ids = async {
        if label_names.is_empty() {
            return Ok(None);
        }
        let scope = LabelScope::Repo {
            id: ctx.repo.id,
            full_name: ctx.repo.full_name(),
        };
        labels::ids_named(db, &[scope], &label_names)
            .await
            .map(Some)
    };
    let known_milestones = async {
        match wanted.is_empty() {
            true => Ok(None),
            false => milestones::all(db, ctx.repo.id).await.map(Some),
        }
    };
    let (poster, assignee, mentioned, label_ids, known) = tokio::join!(
        user_filter(db, caller, q, "created_by"),
        user_filter(db, caller, q, "assigned_by"),
        user_filter(db, caller, q, "mentioned_by"),
        label_ids,
        known_milestones,
    );
    let mut checks = Checks {
        kinds: kinds.clone(),
        states: states(q.get("state")),
        words,
        since,
        before,
        ..Checks::default()
    };
    for (rel, who) in [
        (Relation::Created, poster?),
        (Relation::Assigned, assignee?),
        (Relation::Mentioned, mentioned?),
    ] {
        if let Some(who) = who {
            checks.relations.push((rel, who));
        }
    }
    // Unknown names are discarded; none left: no filter (Gitea's rule).
    if let Some(ids) = label_ids? {
        checks.labels = (!ids.is_empty()).then_some(AnyOf::Ids(ids));
    }
    if let Some(known) = known? {
        // A title first, else a number.
        let mut ids: Vec<i64> = wanted
            .iter()
            .filter_map(|w| {
                known
                    .iter()
                    .find(|m| &m.title == w)
                    .or_else(|| {
                        w.parse::<i64>()
                            .ok()
                            .and_then(|id| known.iter().find(|m| m.id == id))
                    })
                    .map(|m| m.id)
            })
            .collect();
        ids.dedup();
        checks.milestones = (!ids.is_empty()).then_some(AnyOf::Ids(ids));
    }
    listed_in_repo(db, caller, ctx, checks, Order::Newest, q, page, "issues").await
}

/// A repository listing through the index, with the repository's writes
/// the index may not hold yet laid over it (`index::overlay`), so a write
/// shows in the next listing under every filter and on every page.
#[allow(clippy::too_many_arguments)]
pub async fn listed_in_repo(
    db: &Db,
    caller: &Caller,
    ctx: &RepoContext,
    checks: Checks,
    order: Order,
    q: Params<'_>,
    page: Page,
    route: &str,
) -> Result<Listed> {
    let repos = HashMap::from([(ctx.repo.id, ctx.repo.clone())]);
    let marks = match by_words(&checks.words) {
        true => Marks::None,
        false => Marks::Repo(ctx.repo.id),
    };
    let ask = Ask {
        sources: vec![Source::new(
            Scope::Repo(ctx.repo.id),
            kinds_of(&checks.kinds),
        )],
        viewer: None,
        mine: None,
        checks,
        order,
        page,
        in_repo: true,
        cursor: Some(cursor_key(caller, &format!("{route}:{}", ctx.repo.id), q)),
        marks,
    };
    let found = index::find::find(db, ask).await?;
    Ok(Listed {
        shown: found.shown,
        total: found.total,
        repos,
    })
}

/// Whether the caller may know `owner` exists (searches answer for a
/// hidden owner exactly as for a missing one).
fn owner_visible(viewer: &Viewer, owner: &UserRecord) -> bool {
    let caller = viewer.caller();
    let Some(me) = caller.principal() else {
        return owner.visibility == Visibility::Public;
    };
    if viewer.is_admin() || me.user.id == owner.id {
        return true;
    }
    match owner.visibility {
        Visibility::Public => true,
        Visibility::Limited => !caller.public_only(),
        Visibility::Private => {
            !caller.public_only()
                && viewer
                    .memberships()
                    .iter()
                    .any(|m| crate::name::fold(&m.org) == owner.lower_name())
        }
    }
}

/// Whether the caller may know a team exists: its organisation's members
/// and site admins.
fn team_visible(viewer: &Viewer, team: &TeamRecord) -> bool {
    viewer.is_admin()
        || viewer
            .memberships()
            .iter()
            .any(|m| crate::name::fold(&m.org) == crate::name::fold(&team.org))
}

/// The repositories a team was given.
async fn teams_repositories(db: &Db, team: &TeamRecord) -> Result<std::collections::HashSet<i64>> {
    let items = db
        .query_prefix(&crate::db::keys::team_pk(team.id), "REPO#")
        .await?;
    Ok(items
        .iter()
        .map(|i| crate::db::number(i, "repo_id"))
        .collect())
}

/// How many of `total` results search's paging links may reach: whole
/// pages within the first [`RESULT_WINDOW`] (a page past them is refused).
pub fn within_window(total: u64, page: Page) -> u64 {
    let size = u64::from(page.size.max(1));
    total.min(RESULT_WINDOW as u64 / size * size)
}

/// `GET /repos/issues/search`: issues across every repository the caller
/// may read (narrowed by `owner` and `team`), newest first.
pub async fn search(db: &Db, caller: &Caller, q: Params<'_>, page: Page) -> Result<Listed> {
    if page.offset() + page.size as usize > RESULT_WINDOW {
        return Err(Error::TooBroad(format!(
            "search answers only its first {RESULT_WINDOW} results: page {} of {} per page starts past them; narrow the search",
            page.page, page.size
        )));
    }
    let viewer = Viewer::load(db, caller).await?;
    let owner = match q.given("owner") {
        None => None,
        Some(name) => Some(
            users::get(db, name)
                .await?
                .filter(|o| owner_visible(&viewer, o))
                .ok_or_else(|| Error::NoSuchOwner(name.to_string()))?,
        ),
    };
    let team = match (q.given("team"), &owner) {
        (None, _) => None,
        (Some(_), None) => return Err(Error::TeamWithoutOwner),
        (Some(name), Some(org)) => Some(
            teams::list(db, &org.name)
                .await?
                .into_iter()
                .find(|t| t.name.eq_ignore_ascii_case(name))
                .filter(|t| org.is_org() && team_visible(&viewer, t))
                .ok_or_else(|| Error::NoSuchTeam(name.to_string()))?,
        ),
    };
    let me = caller.principal().map(|p| p.user.lower_name());
    let mut checks = Checks {
        kinds: match q.get("type") {
            Some("issues") => vec![false],
            Some("pulls") => vec![true],
            _ => vec![false, true],
        },
        states: states(q.get("state")),
        words: query_words(q.get("q"))?,
        since: instant(q, "since")?,
        before: instant(q, "before")?,
        owner: owner.as_ref().map(UserRecord::lower_name),
        ..Checks::default()
    };
    // The caller's own writes show in their next search at once (others'
    // once the index has them: a moment later), unless it searches words.
    let marks = match &me {
        Some(me) if !by_words(&checks.words) => Marks::Writer(me.clone()),
        _ => Marks::None,
    };
    let label_names = names(q, "labels")?;
    if !label_names.is_empty() {
        checks.labels = Some(AnyOf::Names(label_names));
    }
    let milestone_names = names(q, "milestones")?;
    if !milestone_names.is_empty() {
        checks.milestones = Some(AnyOf::Names(milestone_names));
    }
    // The caller's relations, signed in only (Gitea ignores them else).
    if let Some(me) = &me {
        for (name, rel) in [
            ("created", Relation::Created),
            ("assigned", Relation::Assigned),
            ("mentioned", Relation::Mentioned),
            ("review_requested", Relation::ReviewRequested),
            ("reviewed", Relation::Reviewed),
        ] {
            if flag(q.get(name)) {
                checks.relations.push((rel, me.clone()));
            }
        }
    }
    let narrowing = Narrowing {
        owner: owner.as_ref(),
        team: team.as_ref(),
    };
    let sources = audience::sources(db, &viewer, &narrowing).await?;
    // The caller's own listings span every repository: narrowed to a team
    // that does not include them all, only its repositories count.
    let team_only = match &team {
        Some(t) if !t.includes_all_repositories => Some(teams_repositories(db, t).await?),
        _ => None,
    };
    let ask = Ask {
        sources,
        viewer: Some(&viewer),
        mine: me
            .filter(|_| !checks.relations.is_empty())
            .map(|login| Mine {
                login,
                only: team_only,
            }),
        checks,
        order: Order::Newest,
        page,
        in_repo: false,
        cursor: Some(cursor_key(caller, "search", q)),
        marks,
    };
    let found = index::find::find(db, ask).await?;
    Ok(Listed {
        shown: found.shown,
        total: found.total,
        repos: found.repos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_trail_writes() {
        let w = |ws: &[&str]| ws.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(!by_words(&w(&[])));
        assert!(!by_words(&w(&["42"])), "a number reads the table");
        assert!(by_words(&w(&["crash"])));
        assert!(by_words(&w(&["42", "crash"])));
    }
    use crate::accounts::teams::AccessMode;

    fn perm(issues: AccessMode, pulls: AccessMode) -> Permission {
        Permission {
            mode: AccessMode::Read,
            issues,
            pulls,
            blocked: false,
        }
    }

    #[test]
    fn query_values_parse_as_gitea_reads_them() {
        assert_eq!(states(None), [false]);
        assert_eq!(states(Some(" all ")), [false, true]);
        assert_eq!(states(Some("closed")), [true]);
        assert_eq!(states(Some("nope")), [false]);
        assert_eq!(query_words(Some("  Bug crash ")).unwrap(), ["bug", "crash"]);
        assert!(query_words(Some("a\0b")).unwrap().is_empty());
        assert!(matches!(
            query_words(Some(&"x ".repeat(200))),
            Err(Error::Query { field: "q", .. })
        ));
        assert_eq!(entries(Some(" a, ,b ,")), ["a", "b"]);
        assert!(flag(Some("True")) && flag(Some("1")) && !flag(Some("yes")) && !flag(None));
    }

    #[test]
    fn name_lists_are_bounded() {
        let many = (0..=MAX_NAMES)
            .map(|i| format!("l{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let pairs = [("labels".to_string(), many)];
        assert!(matches!(
            names(Params(&pairs), "labels"),
            Err(Error::Query {
                field: "labels",
                ..
            })
        ));
    }

    #[test]
    fn cursor_identity_ignores_page_and_credentials_and_order() {
        let a = [
            ("q".to_string(), "x".to_string()),
            ("page".to_string(), "2".to_string()),
            ("state".to_string(), "all".to_string()),
        ];
        let b = [
            ("state".to_string(), "all".to_string()),
            ("token".to_string(), "secret".to_string()),
            ("q".to_string(), "x".to_string()),
        ];
        assert_eq!(Params(&a).identity(), Params(&b).identity());
        // A value holding `&` and `=` cannot pose as another query's pairs.
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        let plain = [pair("limit", "10"), pair("q", "crash")];
        let posing = [pair("limit", "10&q=crash")];
        assert_ne!(Params(&plain).identity(), Params(&posing).identity());
    }

    #[test]
    fn search_links_stay_within_its_result_window() {
        let page = |size| Page { page: 1, size };
        assert_eq!(
            within_window(15_080, page(30)),
            990,
            "page 33 is the last served"
        );
        assert_eq!(within_window(15_080, page(50)), 1000);
        assert_eq!(within_window(40, page(30)), 40);
    }

    #[test]
    fn instants_are_rfc3339_or_refused_by_name() {
        let pairs = [
            ("since".to_string(), " 2024-01-01T00:00:00Z ".to_string()),
            ("before".to_string(), "yesterday".to_string()),
        ];
        let q = Params(&pairs);
        assert_eq!(instant(q, "since").unwrap(), Some(1_704_067_200));
        assert!(matches!(
            instant(q, "before"),
            Err(Error::Instant {
                field: "before",
                ..
            })
        ));
        assert_eq!(instant(Params(&[]), "since").unwrap(), None);
    }

    #[test]
    fn repository_listings_show_only_readable_kinds() {
        use AccessMode::{None as No, Read};
        let both = perm(Read, Read);
        let issues_only = perm(Read, No);
        for (raw, p, want) in [
            (None, &both, Some(vec![false, true])),
            (Some("pulls"), &both, Some(vec![true])),
            (Some("pulls"), &issues_only, None),
            (Some("other"), &issues_only, Some(vec![false])),
            (None, &perm(No, No), None),
        ] {
            let got = repo_kinds(raw, p).ok();
            assert_eq!(got, want, "type={raw:?} perm={p:?}");
        }
    }
}
