//! An issue's index document: what the index holds of one issue, stored
//! beside it (`REPO#<id>`/`IXD#<number>`). Its listings and counts are a
//! pure function of it ([`super::lists`], [`super::counts`]), so keeping
//! the index is replacing the document and writing the difference. It is
//! also what a search checks a candidate against (a few KB, whatever the
//! issue's body), and where the words of comments are counted, so an edit
//! knows whether a word is still used elsewhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::class::{Class, RepoFacts};
use crate::{
    db::{self, DbError, Item, keys},
    issues::IssueRecord,
    words,
};

/// Most distinct words taken from a title.
pub const TITLE_WORDS: usize = 32;
/// Most distinct words taken from a body (after the title's).
pub const BODY_WORDS: usize = 32;
/// Most distinct words taken from one comment.
pub const COMMENT_WORDS: usize = 16;
/// Most distinct comment words an issue keeps (later new words are not
/// indexed).
pub const COMMENT_TERMS: usize = 128;

/// A label as the index files it: by id in its repository's listings, by
/// name across repositories.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LabelTerm {
    pub id: i64,
    pub name: String,
}

/// A milestone: by id in its repository, by lower-case title across
/// repositories.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MilestoneTerm {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    pub repo_id: i64,
    pub index: i64,
    /// Global id: shards the global listings.
    pub id: i64,
    #[serde(default)]
    pub is_pull: bool,
    #[serde(default)]
    pub closed: bool,
    pub created: i64,
    pub updated: i64,
    #[serde(default)]
    pub closed_at: i64,
    #[serde(default)]
    pub comments: i64,
    /// The issue's `version` this document reflects.
    #[serde(default)]
    pub version: i64,
    #[serde(default)]
    pub class: Class,
    /// Lower-case owner login.
    pub owner: String,
    #[serde(default)]
    pub private: bool,
    pub poster: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignees: Vec<String>,
    /// Mentioned in the title, body or comments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_requested: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reviewed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<LabelTerm>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone: Option<MilestoneTerm>,
    /// A pull request's base branch.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base: String,
    /// The words of the title and body (capped), and the number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
    /// Words of comments, each with how many comments hold it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub comment_words: BTreeMap<String, u32>,
    /// Stream position (40 digits) of the last change applied: a change
    /// delivered again is recognised and skipped.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub seq: String,
    /// Stream position of the last comment change counted in. Kept apart
    /// from `seq`: a comment change parked and retried later is still
    /// counted after its issue's later changes, or a job's refile, moved
    /// `seq` on (a comment's changes wait behind their issue's, not the
    /// reverse). Empty in documents written before it: `seq` stands in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cseq: String,
    /// Bumped by every write of the document (the condition of the next).
    #[serde(default)]
    pub rev: i64,
}

/// What an issue's document is made from besides the issue.
pub struct Context<'a> {
    pub repo: &'a RepoFacts,
    /// Names of the labels the issue may carry, by id (unknown ids, such
    /// as deleted labels, are left out).
    pub label_names: &'a HashMap<i64, String>,
    /// The title of the issue's milestone, when it has one that exists.
    pub milestone_title: Option<&'a str>,
}

impl Doc {
    /// The document of `issue` now, keeping the comment words of `before`.
    pub fn derive(issue: &IssueRecord, cx: &Context, before: Option<&Doc>) -> Doc {
        let mut labels: Vec<LabelTerm> = issue
            .labels
            .iter()
            .filter_map(|id| {
                cx.label_names.get(id).map(|name| LabelTerm {
                    id: *id,
                    name: name.clone(),
                })
            })
            .collect();
        labels.sort();
        labels.dedup();
        let milestone = cx
            .milestone_title
            .filter(|_| issue.milestone != 0)
            .map(|t| MilestoneTerm {
                id: issue.milestone,
                title: t.to_lowercase(),
            });
        let mut mentions: Vec<String> = issue
            .mentions
            .iter()
            .chain(&issue.comment_mentions)
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        mentions.retain(|m| !m.is_empty());
        Doc {
            repo_id: issue.repo_id,
            index: issue.index,
            id: issue.id,
            is_pull: issue.is_pull,
            closed: issue.closed,
            created: issue.created,
            updated: issue.updated,
            closed_at: issue.closed_at,
            comments: issue.comments,
            version: issue.version,
            class: Class::of(cx.repo, issue.is_pull),
            owner: cx.repo.owner.clone(),
            private: cx.repo.private,
            poster: issue.poster.clone(),
            assignees: issue.assignees.clone(),
            mentions,
            review_requested: issue.review_requested.clone(),
            reviewed: issue.reviewed.clone(),
            labels,
            milestone,
            base: if issue.is_pull {
                issue.base.clone()
            } else {
                String::new()
            },
            words: text_words(issue),
            comment_words: before.map(|d| d.comment_words.clone()).unwrap_or_default(),
            seq: before.map(|d| d.seq.clone()).unwrap_or_default(),
            // A new document has counted no comment change yet (and says
            // so, unlike one written before `cseq` was).
            cseq: before.map_or_else(|| padded_seq("0"), |d| d.cseq.clone()),
            rev: before.map_or(0, |d| d.rev),
        }
    }

    /// Every word a search's `q` may match: title, body, number, comments.
    pub fn terms(&self) -> BTreeSet<&str> {
        self.words
            .iter()
            .map(String::as_str)
            .chain(self.comment_words.keys().map(String::as_str))
            .collect()
    }

    pub fn has_word(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word) || self.comment_words.contains_key(word)
    }

    /// Counts a comment's words in (`sign` 1) or out (-1). Past
    /// [`COMMENT_TERMS`] distinct words, new ones are not counted.
    pub fn count_comment(&mut self, body: &str, sign: i32) {
        count_words(
            &mut self.comment_words,
            comment_words(body).iter().map(String::as_str),
            sign,
        );
    }

    /// The stored item.
    pub fn to_item(&self) -> Result<Item, DbError> {
        let mut item = db::to_item(self)?;
        item.extend(keys::index_doc(self.repo_id, self.index));
        Ok(item)
    }

    pub fn from_item(item: Item) -> Result<Doc, DbError> {
        db::from_item(item)
    }
}

/// The words of an issue's title and body as the index keeps them, with
/// its number (a number in `q` also matches the issue's number).
pub fn text_words(issue: &IssueRecord) -> Vec<String> {
    let (mut out, _) = words::distinct(&issue.title, TITLE_WORDS, &|_| false);
    let (body, _) = words::distinct(&issue.body, BODY_WORDS, &|w| out.iter().any(|t| t == w));
    out.extend(body);
    let number = issue.index.to_string();
    if !out.contains(&number) {
        out.push(number);
    }
    out
}

/// Counts one comment's words (`words`) in (`sign` 1) or out (-1) of
/// `counted`. Past [`COMMENT_TERMS`] distinct words, new ones are not
/// counted.
pub fn count_words<'a>(
    counted: &mut BTreeMap<String, u32>,
    words: impl Iterator<Item = &'a str>,
    sign: i32,
) {
    for w in words {
        let room = counted.len() < COMMENT_TERMS;
        match (counted.get_mut(w), sign > 0) {
            (Some(n), true) => *n += 1,
            (Some(n), false) if *n > 1 => *n -= 1,
            (Some(_), false) => {
                counted.remove(w);
            }
            (None, true) if room => {
                counted.insert(w.to_string(), 1);
            }
            (None, _) => {}
        }
    }
}

/// The words of one comment the index counts.
pub fn comment_words(body: &str) -> Vec<String> {
    words::distinct(body, COMMENT_WORDS, &|_| false).0
}

/// A stream sequence number as documents compare them (40 digits).
pub fn padded_seq(seq: &str) -> String {
    format!("{seq:0>40}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::names::Visibility;

    fn repo() -> RepoFacts {
        RepoFacts {
            id: 7,
            owner: "acme".into(),
            private: false,
            owner_visibility: Visibility::Public,
            has_issues: true,
            has_pulls: true,
        }
    }

    fn issue() -> IssueRecord {
        IssueRecord {
            id: 42,
            repo_id: 7,
            index: 3,
            title: "Crash on start".into(),
            body: "The app crashes when @bob starts it".into(),
            poster: "alice".into(),
            labels: vec![5, 6, 99],
            milestone: 2,
            mentions: vec!["bob".into()],
            comment_mentions: vec!["carol".into(), "bob".into()],
            created: 100,
            updated: 200,
            version: 4,
            ..IssueRecord::default()
        }
    }

    #[test]
    fn documents_keep_what_filters_need() {
        let names = HashMap::from([(5, "bug".to_string()), (6, "ui".to_string())]);
        let cx = Context {
            repo: &repo(),
            label_names: &names,
            milestone_title: Some("V1.0"),
        };
        let d = Doc::derive(&issue(), &cx, None);
        assert_eq!(d.class, Class::Everyone);
        assert_eq!(
            d.labels.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
            ["bug", "ui"],
            "unknown label ids are left out"
        );
        assert_eq!(d.milestone.as_ref().unwrap().title, "v1.0");
        assert_eq!(d.mentions, ["bob", "carol"]);
        assert!(d.has_word("crash") && d.has_word("crashes") && d.has_word("3"));
        assert!(!d.has_word("the"), "stop words are not indexed");
    }

    #[test]
    fn comment_words_are_counted_in_and_out() {
        let names = HashMap::new();
        let cx = Context {
            repo: &repo(),
            label_names: &names,
            milestone_title: None,
        };
        let mut d = Doc::derive(&issue(), &cx, None);
        d.count_comment("segfault segfault in parser", 1);
        d.count_comment("parser again", 1);
        assert_eq!(d.comment_words.get("parser"), Some(&2));
        assert_eq!(d.comment_words.get("segfault"), Some(&1));
        d.count_comment("segfault segfault in parser", -1);
        assert!(!d.has_word("segfault"));
        assert!(d.has_word("parser"));
        // The next derivation keeps comment words.
        let again = Doc::derive(&issue(), &cx, Some(&d));
        assert!(again.has_word("parser"));
    }

    #[test]
    fn comment_words_stop_at_the_cap() {
        let mut d = Doc::default();
        for i in 0..(COMMENT_TERMS + 10) {
            d.count_comment(&format!("word{i}"), 1);
        }
        assert_eq!(d.comment_words.len(), COMMENT_TERMS);
        assert!(!d.has_word(&format!("word{}", COMMENT_TERMS + 1)));
    }

    #[test]
    fn sequence_numbers_compare_as_strings() {
        assert!(padded_seq("99") < padded_seq("100"));
        assert_eq!(padded_seq("5").len(), 40);
    }
}
