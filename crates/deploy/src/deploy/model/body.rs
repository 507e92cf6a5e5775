//! A small reader for the request bodies of the supporting resources
//! (projects, servers, keys, provider apps): typed getters that collect
//! problems per field, and unknown keys reported as not allowed, in the
//! same 400 shape as the application endpoints.

use serde_json::{Map, Value};

use super::input::Problems;
use crate::deploy::error::Result;

pub struct Body {
    map: Map<String, Value>,
    seen: Vec<&'static str>,
    pub problems: Problems,
}

impl Body {
    pub fn new(map: Map<String, Value>) -> Body {
        Body {
            map,
            seen: Vec::new(),
            problems: Problems::default(),
        }
    }

    fn take(&mut self, name: &'static str) -> Option<Value> {
        self.seen.push(name);
        self.map.get(name).cloned()
    }

    pub fn has(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// A string of 1..=`max` characters (trimmed); `None` when absent.
    /// An empty (or blank) string counts as `null`, as Laravel's
    /// `ConvertEmptyStringsToNull` makes it for Coolify: records never
    /// hold empty strings (the store drops them, and a record whose
    /// required attribute is gone no longer decodes).
    pub fn string(&mut self, name: &'static str, required: bool, max: usize) -> Option<String> {
        match self.take(name) {
            None | Some(Value::Null) => {
                if required {
                    self.problems.add(name, "This field is required.");
                }
                None
            }
            Some(Value::String(s)) => {
                let s = s.trim().to_string();
                if s.is_empty() {
                    if required {
                        self.problems.add(name, "This field is required.");
                    }
                    None
                } else if s.chars().count() > max {
                    self.problems.add(
                        name,
                        format!(
                            "The {} field must not be greater than {max} characters.",
                            name.replace('_', " ")
                        ),
                    );
                    None
                } else if s.contains('\0') {
                    self.problems.add(
                        name,
                        format!(
                            "The {} field must not contain NUL characters.",
                            name.replace('_', " ")
                        ),
                    );
                    None
                } else {
                    Some(s)
                }
            }
            Some(_) => {
                self.problems.add(
                    name,
                    format!("The {} field must be a string.", name.replace('_', " ")),
                );
                None
            }
        }
    }

    /// A string kept exactly as sent (spaces, newlines and all), at most
    /// `max` bytes; `None` when absent or `null`. Environment values: NUL
    /// cannot be passed to a process, so it is refused.
    pub fn text(&mut self, name: &'static str, max: usize) -> Option<String> {
        match self.take(name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.len() > max => {
                self.problems.add(
                    name,
                    format!("The {name} field must not be greater than {max} bytes."),
                );
                None
            }
            Some(Value::String(s)) if s.contains('\0') => {
                self.problems.add(
                    name,
                    format!("The {name} field must not contain NUL characters."),
                );
                None
            }
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.problems
                    .add(name, format!("The {name} field must be a string."));
                None
            }
        }
    }

    /// A JSON integer within bounds.
    pub fn integer(
        &mut self,
        name: &'static str,
        required: bool,
        min: i64,
        max: i64,
    ) -> Option<i64> {
        match self.take(name) {
            None | Some(Value::Null) => {
                if required {
                    self.problems.add(name, "This field is required.");
                }
                None
            }
            Some(v) => match v.as_i64().filter(|_| v.is_i64() || v.is_u64()) {
                Some(n) if (min..=max).contains(&n) => Some(n),
                Some(_) => {
                    self.problems.add(
                        name,
                        format!(
                            "The {} field must be between {min} and {max}.",
                            name.replace('_', " ")
                        ),
                    );
                    None
                }
                None => {
                    self.problems.add(
                        name,
                        format!("The {} field must be an integer.", name.replace('_', " ")),
                    );
                    None
                }
            },
        }
    }

    pub fn boolean(&mut self, name: &'static str) -> Option<bool> {
        match self.take(name) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(b),
            Some(_) => {
                self.problems.add(
                    name,
                    format!(
                        "The {} field must be true or false.",
                        name.replace('_', " ")
                    ),
                );
                None
            }
        }
    }

    /// Applies a format rule to a value already read.
    pub fn check(
        &mut self,
        name: &'static str,
        value: Option<String>,
        rule: impl Fn(&str) -> Result<(), String>,
    ) -> Option<String> {
        let v = value?;
        match rule(&v) {
            Ok(()) => Some(v),
            Err(m) => {
                self.problems.add(name, m);
                None
            }
        }
    }

    /// Every problem, plus each key no getter asked for.
    pub fn finish(mut self) -> Result<()> {
        let unknown: Vec<String> = self
            .map
            .keys()
            .filter(|k| !self.seen.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in unknown {
            self.problems.add(&k, "This field is not allowed.");
        }
        self.problems.into_result()
    }
}
