//! The operations issue handlers call, one per route: each loads what its
//! rules need, applies them ([`super::rules`]) and writes through
//! [`super::create`], [`super::edit`] and [`super::deps`].

use crate::time::Zone;

pub use super::opening::{Opened, open};
use super::{
    Error, IssueRecord, Result,
    assignees::assignees,
    deps, edit, fields,
    options::{CreatePullReviewOptions, Edit, IssueMeta, PullReview},
    rules::{self, Editor},
};
use crate::{
    Config,
    accounts::{users, views::User},
    auth::Caller,
    db::Db,
    labels::{self, LabelRecord, LabelRef},
    milestones,
    repos::access::{self, RepoContext, Unit},
    time,
};

/// The issue `index` of the repository, if the caller may read its kind.
pub async fn readable(db: &Db, ctx: &RepoContext, index: i64) -> Result<IssueRecord> {
    let issue = super::find(db, ctx.repo.id, index).await?;
    rules::readable(&ctx.perm, issue)
}

/// The pull request `index` (an issue number is a 404).
pub async fn readable_pull(db: &Db, ctx: &RepoContext, index: i64) -> Result<IssueRecord> {
    let pr = readable(db, ctx, index).await?;
    rules::must_be_pull(&pr)?;
    Ok(pr)
}

/// A milestone id of this repository (0 for none); unknown → 422.
async fn milestone(db: &Db, ctx: &RepoContext, id: i64) -> Result<i64> {
    if id == 0 {
        return Ok(0);
    }
    match milestones::get(db, ctx.repo.id, id).await? {
        Some(m) => Ok(m.id),
        None => Err(Error::NoSuchMilestone(id)),
    }
}

/// Label ids of the repository's or its organisation's labels.
async fn labels(db: &Db, ctx: &RepoContext, wanted: &[LabelRef]) -> Result<Vec<i64>> {
    fields::at_most("labels", wanted.len(), fields::MAX_LABELS)?;
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let known = labels::usable_in(db, &ctx.repo, ctx.owner.is_org()).await?;
    Ok(labels::model::resolve(&known, wanted)?)
}

/// A requested state, with the blockers checked when it closes.
async fn state(db: &Db, ctx: &RepoContext, issue: &IssueRecord, state: &str) -> Result<bool> {
    let closed = rules::requested_state(issue, state)?;
    if rules::closing_needs_blockers(ctx, issue, closed)
        && deps::has_open_blockers(db, issue).await?
    {
        return Err(Error::OpenBlockers);
    }
    Ok(closed)
}

/// `PATCH /issues/{index}` and `PATCH /pulls/{index}` once
/// [`rules::may_edit`] allowed it: the poster may change the title, body,
/// ref, state and `allow_maintainer_edit`; the fields only writers may set
/// are ignored for others, as in Gitea. Every check runs before anything
/// is written, and the change is one transaction with its counter moves.
pub async fn edit(
    db: &Db,
    ctx: &RepoContext,
    editor: Editor,
    issue: IssueRecord,
    e: Edit,
    tz: Zone,
) -> Result<IssueRecord> {
    let title = e
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(fields::title)
        .transpose()?;
    editor.may_change_text(title.is_some() || e.body.is_some())?;
    editor.may_allow_edits(e.allow_maintainer_edit.is_some())?;
    let body = e.body.map(|b| fields::body("body", b)).transpose()?;
    let git_ref = e.git_ref.map(fields::git_ref).transpose()?;
    let base = e
        .base
        .as_deref()
        .map(|b| fields::branch("base", b))
        .transpose()?;
    let can_write = editor.can_write;
    let due = rules::edited_due(
        can_write,
        e.due_date.as_ref().map(Option::as_deref),
        e.unset_due_date,
        tz,
    )?;
    let unit = Unit::for_pull(issue.is_pull);
    let assignees = match (can_write, e.assignees, e.assignee) {
        (true, list @ Some(_), one) | (true, list @ None, one @ Some(_)) => {
            let logins = rules::assignee_logins(list, one)?;
            Some(assignees(db, ctx, logins, &issue.poster, unit).await?)
        }
        _ => None,
    };
    let milestone = match (can_write, e.milestone) {
        (true, Some(m)) if m != issue.milestone => Some(milestone(db, ctx, m).await?),
        _ => None,
    };
    let labels = match (can_write, &e.labels) {
        (true, Some(wanted)) => Some(labels(db, ctx, wanted).await?),
        _ => None,
    };
    let closed = match &e.state {
        Some(s) => Some(state(db, ctx, &issue, s).await?),
        None => None,
    };
    let allow_edits = e.allow_maintainer_edit;
    let loaded_version = body.as_ref().map(|_| issue.content_version);
    edit::update(db, issue, loaded_version, |i| {
        if i.is_pull && i.merged && closed.is_some_and(|c| c != i.closed) {
            return Err(Error::Merged);
        }
        if let Some(t) = &title {
            i.title = t.clone();
        }
        if let Some(b) = &body {
            i.body = b.clone();
        }
        if let Some(r) = &git_ref {
            i.git_ref = r.clone();
        }
        if let Some(d) = due {
            i.due = d;
        }
        if let Some(a) = &assignees {
            i.assignees = a.clone();
        }
        if let Some(m) = milestone {
            i.milestone = m;
        }
        if let Some(l) = &labels {
            i.labels = l.clone();
        }
        if let Some(c) = closed {
            i.closed = c;
        }
        // After the state, as Gitea does: reopening and moving the base
        // in one request works.
        if let Some(b) = base.as_deref().filter(|_| i.is_pull)
            && let Some(b) = rules::edited_base(i, b)?
        {
            i.base = b;
        }
        if let Some(a) = allow_edits.filter(|_| i.is_pull) {
            i.allow_maintainer_edit = a;
        }
        Ok(())
    })
    .await
}

/// Sets (or with `None` removes) the deadline.
pub async fn set_deadline(
    db: &Db,
    issue: IssueRecord,
    raw: Option<String>,
    tz: Zone,
) -> Result<IssueRecord> {
    let due = match raw {
        Some(d) => fields::deadline(&d, tz)?,
        None => 0,
    };
    edit::update(db, issue, None, |i| {
        i.due = due;
        Ok(())
    })
    .await
}

/// Deletes an issue: repository administrators only.
pub async fn remove(db: &Db, ctx: &RepoContext, issue: &IssueRecord) -> Result<()> {
    rules::may_delete(&ctx.perm)?;
    super::delete(db, issue).await
}

/// Adds labels to an issue, or replaces its labels; returns the labels it
/// then carries.
pub async fn set_labels(
    db: &Db,
    ctx: &RepoContext,
    issue: IssueRecord,
    wanted: &[LabelRef],
    replace: bool,
) -> Result<Vec<LabelRecord>> {
    let wanted = labels(db, ctx, wanted).await?;
    let updated = edit::update(db, issue, None, |i| {
        if replace {
            i.labels = wanted.clone();
        } else {
            for id in &wanted {
                if !i.labels.contains(id) {
                    i.labels.push(*id);
                }
            }
        }
        fields::at_most("labels", i.labels.len(), fields::MAX_LABELS)
    })
    .await?;
    labels_of(db, ctx, &updated).await
}

/// The labels an issue carries, by name (then id), as Gitea lists them.
pub async fn labels_of(
    db: &Db,
    ctx: &RepoContext,
    issue: &IssueRecord,
) -> Result<Vec<LabelRecord>> {
    let known = labels::usable_in(db, &ctx.repo, ctx.owner.is_org()).await?;
    let mut carried: Vec<LabelRecord> = known
        .into_iter()
        .filter(|l| issue.labels.contains(&l.id))
        .collect();
    carried.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
    Ok(carried)
}

/// Takes the label `raw` names (an id or a name, see
/// [`labels::model::by_path`]) off an issue. A label the repository cannot
/// use is a 422, as Gitea answers for a label that does not exist (and a
/// label of another repository does not exist here); one the issue does
/// not carry changes nothing. An id the issue still carries after its
/// label was deleted is taken off too.
pub async fn remove_label(db: &Db, ctx: &RepoContext, issue: IssueRecord, raw: &str) -> Result<()> {
    let known = labels::usable_in(db, &ctx.repo, ctx.owner.is_org()).await?;
    let id = match labels::model::by_path(&known, raw) {
        Some(l) => l.id,
        None => match raw.trim().parse::<i64>() {
            Ok(id) if issue.labels.contains(&id) => id,
            Ok(id) => return Err(labels::Error::Unknown(LabelRef::Id(id)).into()),
            Err(_) => return Err(labels::Error::Unknown(LabelRef::Name(raw.into())).into()),
        },
    };
    edit::update(db, issue, None, |i| {
        i.labels.retain(|l| *l != id);
        Ok(())
    })
    .await?;
    Ok(())
}

pub async fn clear_labels(db: &Db, issue: IssueRecord) -> Result<()> {
    edit::update(db, issue, None, |i| {
        i.labels.clear();
        Ok(())
    })
    .await?;
    Ok(())
}

/// Marks a pull request merged and closed.
pub async fn merge(db: &Db, ctx: &RepoContext, pr: IssueRecord) -> Result<()> {
    rules::may_merge(ctx, &pr)?;
    edit::update(db, pr, None, |p| {
        if p.merged || p.closed {
            return Err(Error::MergedOrClosed);
        }
        p.merged = true;
        p.merged_at = time::now();
        p.closed = true;
        Ok(())
    })
    .await?;
    Ok(())
}

async fn review_reply(
    db: &Db,
    ctx: &RepoContext,
    pr: &IssueRecord,
    login: &str,
    state: &str,
    body: String,
    config: &Config,
) -> Result<PullReview> {
    let user = users::get(db, login).await?.ok_or(Error::Hidden)?;
    let url = config.url(&format!("{}/pulls/{}", ctx.repo.full_name(), pr.index));
    let now = time::render(time::now(), config.display_tz);
    Ok(PullReview {
        id: db.next_id("review").await?,
        user: User::embedded(&user, config),
        state: state.into(),
        body,
        commit_id: String::new(),
        stale: false,
        official: ctx.perm.can_write(Unit::Pulls),
        dismissed: false,
        html_url: url.clone(),
        pull_request_url: url,
        submitted_at: now.clone(),
        updated_at: now,
    })
}

/// Asks users (who must be able to read pull requests) for a review.
pub async fn request_reviewers(
    db: &Db,
    ctx: &RepoContext,
    pr: IssueRecord,
    reviewers: Vec<String>,
    config: &Config,
) -> Result<Vec<PullReview>> {
    fields::at_most("reviewers", reviewers.len(), fields::MAX_REVIEW_REQUESTS)?;
    let wanted = assignees(db, ctx, reviewers, &pr.poster, Unit::Pulls).await?;
    let updated = edit::update(db, pr, None, |p| {
        for r in &wanted {
            if !p.review_requested.contains(r) {
                p.review_requested.push(r.clone());
            }
        }
        fields::at_most(
            "reviewers",
            p.review_requested.len(),
            fields::MAX_REVIEW_REQUESTS,
        )
    })
    .await?;
    let mut out = Vec::new();
    for r in &wanted {
        out.push(
            review_reply(
                db,
                ctx,
                &updated,
                r,
                "REQUEST_REVIEW",
                String::new(),
                config,
            )
            .await?,
        );
    }
    Ok(out)
}

/// APPROVED, REQUEST_CHANGES or COMMENT: the reviewer leaves the requested
/// list and joins the reviewed one.
pub async fn review(
    db: &Db,
    ctx: &RepoContext,
    pr: IssueRecord,
    me: String,
    o: CreatePullReviewOptions,
    config: &Config,
) -> Result<PullReview> {
    let body = o.body.map(|b| fields::body("body", b)).transpose()?;
    let event = rules::review_event(&ctx.perm, &pr, &me, &o.event)?;
    let excerpt: String = body
        .as_deref()
        .unwrap_or_default()
        .chars()
        .take(super::LastReview::EXCERPT_CHARS)
        .collect();
    let updated = edit::update(db, pr, None, |p| {
        p.review_requested.retain(|r| r != &me);
        if !p.reviewed.contains(&me) {
            p.reviewed.push(me.clone());
        }
        p.last_review = Some(super::LastReview {
            login: me.clone(),
            event: event.clone(),
            n: p.last_review.as_ref().map_or(0, |r| r.n) + 1,
            excerpt: excerpt.clone(),
        });
        fields::at_most("reviewers", p.reviewed.len(), fields::MAX_REVIEWERS)
    })
    .await?;
    review_reply(
        db,
        ctx,
        &updated,
        &me,
        &event,
        body.unwrap_or_default(),
        config,
    )
    .await
}

/// Adds (`add`) or removes a dependency between the path's issue and the
/// one `other` names, which the caller must be able to read (404). The
/// caller must write the dependent one (404 otherwise, as in Gitea).
/// Returns the dependent issue and its repository.
pub async fn link(
    db: &Db,
    caller: &Caller,
    path: (RepoContext, IssueRecord),
    other: IssueMeta,
    path_is_dependent: bool,
    add: bool,
) -> Result<(RepoContext, IssueRecord)> {
    let octx = access::load(db, caller, &other.owner, &other.repo).await?;
    let oissue = readable(db, &octx, other.index).await?;
    let ((dctx, dependent), (_, blocker)) = if path_is_dependent {
        (path, (octx, oissue))
    } else {
        ((octx, oissue), path)
    };
    rules::must_write(&dctx.perm, &dependent, Error::Hidden)?;
    if add {
        deps::add(db, &dependent, &blocker).await?;
    } else {
        deps::remove(db, &dependent, &blocker).await?;
    }
    Ok((dctx, dependent))
}
