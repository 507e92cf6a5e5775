//! Opening an issue or pull request in two round trips after the
//! repository: one concurrent wave reads what the fields only writers may
//! set name (assignees and their standing, the milestone, the labels) with
//! what the transaction needs (the global id, the repository's last
//! number); then one transaction ([`create`]). The checks then run on what
//! was read, in the order they always had, so the first failing one is
//! still the answer. The reply renders from the same reads.

use crate::time::Zone;

use super::{
    Error, IssueRecord, Result,
    assignees::{check_assignees, distinct},
    create::{self, NewIssue},
    fields,
    options::{Draft, WriterInput},
    rules::{self, Poster},
    views::Lookup,
};
use crate::{
    accounts::users::UserRecord,
    db::Db,
    labels::{self, LabelRef},
    milestones,
    repos::access::{self, RepoContext, Unit},
};

/// A created issue, with what its reply shows of the records it refers to.
pub struct Opened {
    pub issue: IssueRecord,
    pub lookup: Lookup,
}

/// Opens an issue or pull request; `me` is the poster's record (the
/// caller's, which authentication read).
pub async fn open(
    db: &Db,
    ctx: &RepoContext,
    poster: Poster,
    me: &UserRecord,
    mut draft: Draft,
    tz: Zone,
) -> Result<Opened> {
    let unit = Unit::for_pull(draft.is_pull);
    // The fields only writers may set are dropped for others.
    let w = if ctx.perm.can_write(unit) {
        std::mem::take(&mut draft.wanted)
    } else {
        WriterInput::default()
    };
    let logins = distinct(rules::assignee_logins(w.assignees, w.assignee)?);
    let wanted_labels: Vec<LabelRef> = w
        .labels
        .unwrap_or_default()
        .into_iter()
        .map(LabelRef::Id)
        .collect();
    let label_count = fields::at_most("labels", wanted_labels.len(), fields::MAX_LABELS);
    let read_labels = !wanted_labels.is_empty() && label_count.is_ok();
    let milestone_id = w.milestone.unwrap_or(0);
    let (found, milestone, known, claim) = tokio::try_join!(
        async { Ok::<_, Error>(access::others(db, ctx, &logins, Some(poster.login())).await?) },
        async {
            match milestone_id {
                0 => Ok(None),
                id => Ok(milestones::get(db, ctx.repo.id, id).await?),
            }
        },
        async {
            match read_labels {
                true => Ok(labels::usable_in(db, &ctx.repo, ctx.owner.is_org()).await?),
                false => Ok(Vec::new()),
            }
        },
        create::claim(db, ctx.repo.id),
    )?;
    // The old order: assignees, milestone, labels, deadline.
    let assignees = check_assignees(ctx, &logins, &found, poster.login(), unit)?;
    if milestone_id != 0 && milestone.is_none() {
        return Err(Error::NoSuchMilestone(milestone_id));
    }
    label_count?;
    let label_ids = labels::model::resolve(&known, &wanted_labels)?;
    let due = match w.due_date {
        Some(d) => fields::deadline(&d, tz)?,
        None => 0,
    };
    let new = NewIssue {
        is_pull: draft.is_pull,
        title: draft.title,
        body: draft.body,
        git_ref: draft.git_ref,
        poster: poster.0,
        assignees: logins,
        labels: label_ids.clone(),
        milestone: milestone.as_ref().map_or(0, |m| m.id),
        due,
        closed: draft.closed,
        head: draft.head,
        base: draft.base,
    };
    let issue = create::create(db, ctx.repo.id, new, claim).await?;
    // The transaction counted the issue in its milestone.
    let milestone = milestone.map(|mut m| {
        m.num_issues += 1;
        m.num_closed_issues += i64::from(issue.closed);
        m
    });
    let labels = known.into_iter().filter(|l| label_ids.contains(&l.id));
    let users = assignees.into_iter().chain([me.clone()]);
    Ok(Opened {
        lookup: Lookup::of(users, labels, milestone),
        issue,
    })
}
