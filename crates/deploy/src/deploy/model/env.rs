//! Environment variables of an application: what a create, update or bulk
//! entry says, with Coolify's rules (key pattern and length, comment
//! length, the allowed fields), and the stored record. Values are sealed
//! by the store (`deploy::envs`); here they are plain text.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::body::Body;
use crate::deploy::error::{Error, Result};

/// Most variables an application holds (preview and regular together).
pub const MAX_PER_APP: usize = 200;
/// Largest value, and all of an application's values together, in bytes.
pub const MAX_VALUE_BYTES: usize = 32 * 1024;
pub const MAX_APP_BYTES: usize = 256 * 1024;
/// Most entries of one bulk request.
pub const MAX_BULK: usize = 100;
const MAX_KEY: usize = 255;
const MAX_COMMENT: usize = 256;

/// One variable as a request describes it. Absent flags are `None`: a
/// create fills Coolify's defaults, an update keeps or clears as Coolify
/// does ([`EnvRecord::update`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EnvSpec {
    pub key: String,
    /// `None` is JSON `null` (or no value at all).
    pub value: Option<String>,
    pub is_preview: bool,
    pub is_literal: Option<bool>,
    pub is_multiline: Option<bool>,
    pub is_shown_once: Option<bool>,
    pub is_runtime: Option<bool>,
    pub is_buildtime: Option<bool>,
    /// `Some(None)`: the comment was sent as `null`.
    pub comment: Option<Option<String>>,
}

impl EnvSpec {
    /// A create or update body. Fields outside Coolify's list are "not
    /// allowed"; the key is trimmed and checked against Coolify's pattern.
    pub fn parse(map: Map<String, Value>) -> Result<EnvSpec> {
        let mut body = Body::new(map);
        let spec = Self::read(&mut body);
        body.finish()?;
        spec.ok_or(Error::Internal("an invalid variable passed its checks"))
    }

    /// Bulk's `{data: [...]}`, each entry read as [`EnvSpec::parse`] reads
    /// a body, its problems named `data.<i>.<field>`.
    pub fn parse_bulk(mut map: Map<String, Value>) -> Result<Vec<EnvSpec>> {
        let data = map.remove("data");
        let mut problems = super::input::Problems::default();
        for k in map.keys() {
            problems.add(k, "This field is not allowed.");
        }
        let entries = match data {
            None | Some(Value::Null) => {
                return Err(Error::BadRequest("Bulk data is required.".into()));
            }
            Some(Value::Array(a)) if a.is_empty() => {
                return Err(Error::BadRequest("Bulk data is required.".into()));
            }
            Some(Value::Array(a)) => a,
            Some(_) => {
                problems.add("data", "The data field must be an array.");
                return problems.into_result().map(|()| Vec::new());
            }
        };
        if entries.len() > MAX_BULK {
            problems.add(
                "data",
                format!("The data field must not have more than {MAX_BULK} items."),
            );
            return problems.into_result().map(|()| Vec::new());
        }
        let mut specs = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let Value::Object(map) = entry else {
                problems.add(&format!("data.{i}"), "Each entry must be an object.");
                continue;
            };
            match Self::parse(map) {
                Ok(s) => specs.push(s),
                Err(Error::Invalid(fields)) => {
                    for (field, messages) in fields {
                        for m in messages {
                            problems.add(&format!("data.{i}.{field}"), m);
                        }
                    }
                }
                Err(e) => return Err(e),
            }
        }
        problems.into_result()?;
        Ok(specs)
    }

    fn read(body: &mut Body) -> Option<EnvSpec> {
        let key = body.string("key", true, MAX_KEY);
        let key = body.check("key", key, |k| {
            valid_key(k).then_some(()).ok_or_else(|| {
                "The key must start with a letter or underscore and may only contain letters, numbers, underscores, and dots.".to_string()
            })
        });
        let has_value = body.has("value");
        let value = body.text("value", MAX_VALUE_BYTES);
        let is_preview = body.boolean("is_preview");
        let is_literal = body.boolean("is_literal");
        let is_multiline = body.boolean("is_multiline");
        let is_shown_once = body.boolean("is_shown_once");
        let is_runtime = body.boolean("is_runtime");
        let is_buildtime = body.boolean("is_buildtime");
        let has_comment = body.has("comment");
        let comment = body.string("comment", false, MAX_COMMENT);
        if !body.problems.is_empty() {
            return None;
        }
        Some(EnvSpec {
            key: key?,
            value: if has_value { value } else { None },
            is_preview: is_preview.unwrap_or(false),
            is_literal,
            is_multiline,
            is_shown_once,
            is_runtime,
            is_buildtime,
            comment: has_comment.then_some(comment),
        })
    }
}

/// Coolify's key pattern: a letter or underscore, then letters, digits,
/// underscores and dots.
fn valid_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A stored variable. The value is not here: the store keeps it sealed
/// next to these fields and opens it only for callers who may see it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct EnvRecord {
    pub uuid: String,
    pub application_uuid: String,
    pub key: String,
    pub is_preview: bool,
    pub is_literal: bool,
    pub is_multiline: bool,
    pub is_shown_once: bool,
    pub is_runtime: bool,
    pub is_buildtime: bool,
    #[serde(default)]
    pub comment: Option<String>,
    /// The value's length in bytes (0 for `null`), for the per-application
    /// bound.
    pub value_bytes: usize,
    pub created_at: String,
    pub updated_at: String,
}

impl EnvRecord {
    /// A new variable with Coolify's defaults: runtime and build time,
    /// not literal, not multiline, shown.
    pub fn create(uuid: String, app: &str, spec: &EnvSpec, now: &str) -> EnvRecord {
        EnvRecord {
            uuid,
            application_uuid: app.to_string(),
            key: spec.key.clone(),
            is_preview: spec.is_preview,
            is_literal: spec.is_literal.unwrap_or(false),
            is_multiline: spec.is_multiline.unwrap_or(false),
            is_shown_once: spec.is_shown_once.unwrap_or(false),
            is_runtime: spec.is_runtime.unwrap_or(true),
            is_buildtime: spec.is_buildtime.unwrap_or(true),
            comment: spec.comment.clone().flatten(),
            value_bytes: value_bytes(spec),
            created_at: now.to_string(),
            updated_at: now.to_string(),
        }
    }

    /// An update as Coolify applies it: the value always; literal and
    /// multiline as sent (absent is false); runtime, build time and the
    /// comment only when sent. One difference: `is_shown_once` never goes
    /// back to false, or an update could reveal a value that was to stay
    /// hidden.
    pub fn update(&self, spec: &EnvSpec, now: &str) -> EnvRecord {
        EnvRecord {
            is_literal: spec.is_literal.unwrap_or(false),
            is_multiline: spec.is_multiline.unwrap_or(false),
            is_shown_once: self.is_shown_once || spec.is_shown_once.unwrap_or(false),
            is_runtime: spec.is_runtime.unwrap_or(self.is_runtime),
            is_buildtime: spec.is_buildtime.unwrap_or(self.is_buildtime),
            comment: match &spec.comment {
                Some(c) => c.clone(),
                None => self.comment.clone(),
            },
            value_bytes: value_bytes(spec),
            updated_at: now.to_string(),
            ..self.clone()
        }
    }
}

fn value_bytes(spec: &EnvSpec) -> usize {
    spec.value.as_deref().map_or(0, str::len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<EnvSpec> {
        EnvSpec::parse(v.as_object().unwrap().clone())
    }

    fn fields(e: Error) -> Vec<String> {
        match e {
            Error::Invalid(f) => f.into_keys().collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn keys_follow_coolifys_pattern() {
        for ok in ["A", "_x", "a.b_C9", " PADDED "] {
            assert!(parse(json!({"key": ok, "value": "v"})).is_ok(), "{ok}");
        }
        for bad in ["9a", "a-b", "a b", ".a", "", "é"] {
            assert_eq!(
                fields(parse(json!({"key": bad})).unwrap_err()),
                ["key"],
                "{bad}"
            );
        }
        let long = "K".repeat(256);
        assert_eq!(fields(parse(json!({"key": long})).unwrap_err()), ["key"]);
        assert_eq!(parse(json!({"key": " K "})).unwrap().key, "K");
    }

    #[test]
    fn values_keep_their_spaces_and_are_bounded() {
        let s = parse(json!({"key": "K", "value": "  two\nlines "})).unwrap();
        assert_eq!(s.value.as_deref(), Some("  two\nlines "));
        assert_eq!(
            parse(json!({"key": "K", "value": ""}))
                .unwrap()
                .value
                .as_deref(),
            Some("")
        );
        assert_eq!(
            parse(json!({"key": "K", "value": null})).unwrap().value,
            None
        );
        let big = "v".repeat(MAX_VALUE_BYTES + 1);
        assert_eq!(
            fields(parse(json!({"key": "K", "value": big})).unwrap_err()),
            ["value"]
        );
        assert_eq!(
            fields(parse(json!({"key": "K", "value": 5})).unwrap_err()),
            ["value"]
        );
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_named() {
        let e = parse(
            json!({"key": "K", "is_preview": "yes", "colour": 1, "comment": "c".repeat(257)}),
        )
        .unwrap_err();
        assert_eq!(fields(e), ["colour", "comment", "is_preview"]);
    }

    #[test]
    fn bulk_names_entries_and_bounds_the_count() {
        let map = |v: Value| v.as_object().unwrap().clone();
        assert!(matches!(
            EnvSpec::parse_bulk(map(json!({}))),
            Err(Error::BadRequest(_))
        ));
        assert!(matches!(
            EnvSpec::parse_bulk(map(json!({"data": []}))),
            Err(Error::BadRequest(_))
        ));
        let e =
            EnvSpec::parse_bulk(map(json!({"data": [{"key": "A"}, {"key": "9"}, 3]}))).unwrap_err();
        assert_eq!(fields(e), ["data.1.key", "data.2"]);
        let many: Vec<Value> = (0..=MAX_BULK)
            .map(|i| json!({"key": format!("K{i}")}))
            .collect();
        assert_eq!(
            fields(EnvSpec::parse_bulk(map(json!({"data": many}))).unwrap_err()),
            ["data"]
        );
        assert_eq!(
            EnvSpec::parse_bulk(map(json!({"data": [{"key": "A", "value": "1"}]})))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn defaults_and_updates_follow_coolify_but_shown_once_sticks() {
        let spec =
            parse(json!({"key": "K", "value": "abc", "is_shown_once": true, "comment": "c"}))
                .unwrap();
        let r = EnvRecord::create("u".into(), "app", &spec, "t0");
        assert!(r.is_runtime && r.is_buildtime && !r.is_literal && r.is_shown_once);
        assert_eq!((r.value_bytes, r.comment.as_deref()), (3, Some("c")));
        let next = parse(json!({"key": "K", "value": null, "is_runtime": false})).unwrap();
        let u = r.update(&next, "t1");
        assert!(u.is_shown_once && !u.is_runtime && u.is_buildtime);
        assert_eq!(
            (u.value_bytes, u.comment.as_deref(), u.created_at.as_str()),
            (0, Some("c"), "t0")
        );
        let cleared = u.update(&parse(json!({"key": "K", "comment": null})).unwrap(), "t2");
        assert_eq!(cleared.comment, None);
    }
}
