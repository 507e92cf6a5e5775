//! What the index should hold of a repository, recomputed from the
//! scanned items the way the stream consumer computes it from the table:
//! the repository's context (`context::load`), each issue's document
//! (`Doc::derive`), its comment words (`Doc::count_comment`, comment by
//! comment in id order) and each comment's listing entries
//! (`index::stubs`).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::super::{
    Inventory,
    inventory::{WORDS, words},
};
use crate::{
    accounts::names::Visibility,
    db::{self, Item, keys, number, s, text},
    issues::{
        IssueRecord,
        index::{
            class::RepoFacts,
            context::RepoContext,
            doc::{self, Doc},
        },
        index::{
            lists::Stub,
            stubs::{self, CommentPlace},
        },
    },
    name::fold,
};

/// What the consumer reads of a repository's settings item.
#[derive(Deserialize)]
struct Settings {
    private: bool,
    has_issues: bool,
    has_pull_requests: bool,
}

/// What it reads of the owner's profile.
#[derive(Deserialize)]
struct Owner {
    name: String,
    #[serde(default)]
    visibility: Visibility,
}

/// A live repository's context, or `None` when the consumer would take
/// the repository for gone (no counters item, no owner profile).
pub fn context(inv: &Inventory, id: i64, owner: &str, name: &str) -> Option<RepoContext> {
    let repo_pk = keys::repo_pk(id);
    inv.get(&repo_pk, keys::PROFILE)?;
    let settings = keys::repo_name(owner, name);
    let settings: Settings = decode(inv.get(text(&settings, "pk"), text(&settings, "sk"))?)?;
    let owner_pk = keys::owner_pk(owner);
    let profile: Owner = decode(inv.get(&owner_pk, keys::PROFILE)?)?;
    let mut label_names = HashMap::new();
    for l in inv
        .with_prefix(&repo_pk, keys::LABEL_PREFIX)
        .chain(inv.with_prefix(&owner_pk, keys::LABEL_PREFIX))
    {
        label_names.insert(number(l, "id"), text(l, "name").to_string());
    }
    let milestone_titles = inv
        .with_prefix(&repo_pk, keys::MILESTONE_PREFIX)
        .map(|m| (number(m, "id"), text(m, "title").to_string()))
        .collect();
    Some(RepoContext {
        facts: RepoFacts {
            id,
            owner: fold(&profile.name),
            private: settings.private,
            owner_visibility: profile.visibility,
            has_issues: settings.has_issues,
            has_pulls: settings.has_pull_requests,
        },
        label_names,
        milestone_titles,
    })
}

fn decode<T: serde::de::DeserializeOwned>(item: &Item) -> Option<T> {
    db::from_item(item.clone()).ok()
}

/// The document of a scanned issue, without comment words; `None` when the
/// item does not read as an issue (the consumer could not file it either).
pub fn document(issue: &Item, cx: &RepoContext) -> Option<Doc> {
    let mut item = issue.clone();
    item.remove(WORDS);
    // The texts became words when scanned (what `Doc::derive` makes of them).
    item.insert("title".into(), s(""));
    let record: IssueRecord = db::from_item(item).ok()?;
    let context = doc::Context {
        repo: &cx.facts,
        label_names: &cx.label_names,
        milestone_title: cx
            .milestone_titles
            .get(&record.milestone)
            .map(String::as_str),
    };
    let mut d = Doc::derive(&record, &context, None);
    d.words = words(issue).map(str::to_string).collect();
    Some(d)
}

/// Counts one comment's words in, as the consumer does with its body.
pub fn count_comment(counted: &mut BTreeMap<String, u32>, comment: &Item) {
    doc::count_words(counted, words(comment), 1);
}

/// A comment's listing entries with what each carries, as
/// `index::stubs` writes them.
pub fn stubs(c: &Item) -> BTreeMap<(String, String), Stub> {
    stubs::stubs(&CommentPlace::of(c))
}
