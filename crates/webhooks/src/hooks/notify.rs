//! The stream consumer's first webhook step: a change to an issue, a pull
//! request or a comment becomes its events ([`happened`]), each event the
//! deliveries of the hooks that want it (the repository's, its owner's
//! and the site's), stored with the payload in one transaction under ids
//! derived from the stream record. A batch handled twice stores nothing
//! new; the deliveries' inserts come back on the stream to the
//! [`Sender`](super::send::Sender).

use std::sync::Arc;

use super::{
    delivery::{self, DeliveryRecord},
    happened::{self, Happening, Subject},
    model::HookRecord,
    payload::{self, RepoFacts},
};
use crate::{
    Config,
    db::{self, Consistency, Db, DbError, keys},
    stream::{Change, Handler, memo::Memo},
    time,
};

/// Webhook events from changes. Made afresh for each batch: it keeps the
/// repositories and hooks it read for the batch.
pub struct Notifier {
    config: Arc<Config>,
    repos: Memo<i64, Option<Arc<RepoFacts>>>,
    hooks: Memo<String, Arc<Vec<HookRecord>>>,
}

impl Notifier {
    pub fn new(config: Arc<Config>) -> Self {
        Self {
            config,
            repos: Memo::default(),
            hooks: Memo::default(),
        }
    }

    async fn repo(&self, db: &Db, id: i64) -> Result<Option<Arc<RepoFacts>>, DbError> {
        self.repos
            .get(id, || async move {
                Ok(RepoFacts::load(db, id).await?.map(Arc::new))
            })
            .await
    }

    /// The hooks in partition `pk` (at most [`super::MAX_HOOKS`]).
    async fn hooks_in(&self, db: &Db, pk: &str) -> Result<Arc<Vec<HookRecord>>, DbError> {
        self.hooks
            .get(pk.to_string(), || async move {
                let items = db
                    .query_prefix_with(pk, keys::HOOK_ENTRY_PREFIX, None, Consistency::Strong)
                    .await?;
                let hooks = items
                    .into_iter()
                    .map(db::from_item)
                    .collect::<Result<Vec<HookRecord>, _>>()?;
                Ok(Arc::new(hooks))
            })
            .await
    }

    /// Every hook that hears of the repository's changes: its own, its
    /// owner's (organisation or user) and the site's.
    async fn hooks_of(&self, db: &Db, facts: &RepoFacts) -> Result<Vec<HookRecord>, DbError> {
        let (repo_pk, owner_pk) = (
            keys::repo_pk(facts.repo.id),
            keys::owner_pk(&facts.repo.owner),
        );
        let (repo, owner, site) = tokio::try_join!(
            self.hooks_in(db, &repo_pk),
            self.hooks_in(db, &owner_pk),
            self.hooks_in(db, keys::SITE_HOOKS_PK),
        )?;
        Ok(repo
            .iter()
            .chain(owner.iter())
            .chain(site.iter())
            .cloned()
            .collect())
    }

    async fn notify(&self, db: &Db, change: &Change) -> Result<(), crate::Error> {
        let happenings = happened::happenings(change)?;
        let Some(first) = happenings.first() else {
            return Ok(());
        };
        // A repository's own event carries the repository; its own hooks
        // are not told (none yet when it is made, being removed when it
        // is deleted), its owner's and the site's are.
        let (facts, hooks) = match &first.subject {
            Subject::Repo(r) => {
                let Some(facts) = RepoFacts::of(db, (**r).clone()).await? else {
                    return Ok(());
                };
                let owner_pk = keys::owner_pk(&facts.repo.owner);
                let (owner, site) = tokio::try_join!(
                    self.hooks_in(db, &owner_pk),
                    self.hooks_in(db, keys::SITE_HOOKS_PK),
                )?;
                let hooks = owner.iter().chain(site.iter()).cloned().collect();
                (Arc::new(facts), hooks)
            }
            _ => {
                let Some(facts) = self.repo(db, first.repo_id).await? else {
                    return Ok(());
                };
                let hooks = self.hooks_of(db, &facts).await?;
                (facts, hooks)
            }
        };
        for (n, h) in happenings.iter().enumerate() {
            let wanted: Vec<&HookRecord> = hooks.iter().filter(|k| wants(k, h)).collect();
            if wanted.is_empty() {
                continue;
            }
            let Some(body) = payload::render(db, &self.config, &facts, h).await? else {
                continue;
            };
            let n = n.to_string();
            let event_id = delivery::derived_id(&[&change.seq, &n]);
            let now = time::now_ms();
            let deliveries: Vec<DeliveryRecord> = wanted
                .iter()
                .map(|k| {
                    let id = delivery::derived_id(&[&change.seq, &n, &k.id.to_string()]);
                    DeliveryRecord::pending(id, k, h, &event_id, now)
                })
                .collect();
            delivery::create(db, &event_id, &body, &deliveries, now).await?;
        }
        Ok(())
    }
}

/// Whether hook `k` wants event `h`: active, subscribed, and for pull
/// requests, a base branch its `branch_filter` matches.
fn wants(k: &HookRecord, h: &Happening) -> bool {
    if !k.active || !k.events.iter().any(|e| e == h.event.name()) {
        return false;
    }
    match &h.subject {
        Subject::Issue(i) if i.is_pull => branch_matches(&k.branch_filter, &i.base),
        _ => true,
    }
}

/// Gitea's branch filter: empty or `*` for every branch, else a glob, with
/// `{a,b}` for alternatives.
pub fn branch_matches(filter: &str, branch: &str) -> bool {
    let filter = filter.trim();
    if filter.is_empty() || filter == "*" {
        return true;
    }
    let inner = filter
        .strip_prefix('{')
        .and_then(|f| f.strip_suffix('}'))
        .unwrap_or(filter);
    inner
        .split(',')
        .any(|alt| crate::text::star_match(alt.trim(), branch))
}

impl Handler for Notifier {
    fn name(&self) -> &'static str {
        "hooks"
    }

    fn wants(&self, change: &Change) -> bool {
        happened::concerns(change)
    }

    /// A change's deliveries are its own (ids derived from its sequence
    /// number, the payload from its images and the repository as it is
    /// now): a record's later change need not wait for a parked one, so
    /// one failing event does not delay the next.
    fn ordered(&self, _change: &Change) -> bool {
        false
    }

    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        Box::pin(self.notify(db, change))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        hooks::{HookOwner, NewHook},
        issues::IssueRecord,
    };

    #[test]
    fn branch_filters_are_globs_with_alternatives() {
        assert!(branch_matches("", "main"));
        assert!(branch_matches("*", "feature/x"));
        assert!(branch_matches("{main,release/*}", "release/1.2"));
        assert!(!branch_matches("{main,release/*}", "dev"));
        assert!(branch_matches("main", "main"));
        assert!(!branch_matches("main", "mainline"));
    }

    #[test]
    fn a_hook_hears_what_it_subscribed_to_on_its_branches() {
        let hook = |events: &[&str], filter: &str, active: bool| {
            NewHook {
                kind: "gitea".into(),
                url: "http://h/".into(),
                content_type: "json".into(),
                secret: String::new(),
                authorization_header: String::new(),
                events: events.iter().map(|e| e.to_string()).collect(),
                branch_filter: filter.into(),
                active,
            }
            .record(1, HookOwner::Site, 0)
        };
        let pr = |base: &str| Happening {
            repo_id: 1,
            event: crate::hooks::events::Event::PullRequest,
            action: "opened",
            changes: None,
            subject: Subject::Issue(Box::new(IssueRecord {
                is_pull: true,
                base: base.into(),
                ..IssueRecord::default()
            })),
            actor: None,
            detail: None,
        };
        assert!(wants(&hook(&["pull_request"], "main", true), &pr("main")));
        assert!(!wants(&hook(&["pull_request"], "main", true), &pr("dev")));
        assert!(!wants(&hook(&["pull_request"], "", false), &pr("main")));
        assert!(!wants(&hook(&["issues"], "", true), &pr("main")));
    }
}
