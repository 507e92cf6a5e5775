//! Reading a body against an endpoint's field sets: unknown or
//! not-accepted keys, required keys, JSON types, lengths and formats, every
//! problem collected (as Coolify's validator does) into one 400 that names
//! each field.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Map, Value};

use super::{
    checks::Check,
    domains::{DomainList, MAX_DOMAINS},
    fields::{ALIASES, Endpoint, Field, Kind, Role, field},
};
use crate::deploy::error::{Error, Result};
use Kind::*;

/// A body that passed every field rule: canonical names, decoded text.
#[derive(Clone, Debug, Default)]
pub struct Input {
    values: BTreeMap<&'static str, Value>,
}

impl Input {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// A string value; `None` when absent or null.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(Value::as_str)
    }

    /// Whether the client sent the key (even as `null`).
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    pub fn flag(&self, name: &str, default: bool) -> bool {
        self.values
            .get(name)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    }

    pub fn set(&mut self, name: &'static str, value: Value) {
        self.values.insert(name, value);
    }

    /// The stored settings (neither placements nor request flags).
    pub fn settings(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.values
            .iter()
            .filter(|(k, _)| field(k).is_some_and(|f| f.role == Role::Setting))
            .map(|(k, v)| (*k, v))
    }
}

/// Collected field errors, rendered as one 400.
#[derive(Default)]
pub struct Problems(BTreeMap<String, Vec<String>>);

impl Problems {
    pub fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0
            .entry(field.to_string())
            .or_default()
            .push(message.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_result(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(self.0))
        }
    }
}

/// Checks `body` against `endpoint`. `repository` is the format rule of
/// `git_repository` for this source.
pub fn parse(body: Map<String, Value>, endpoint: Endpoint, repository: Check) -> Result<Input> {
    let mut problems = Problems::default();
    let mut input = Input::default();
    for (key, value) in body {
        let canonical = ALIASES
            .iter()
            .find(|(alias, _)| *alias == key)
            .map_or(key.as_str(), |(_, name)| name);
        let Some(field) = field(canonical).filter(|_| endpoint.accepts(canonical)) else {
            problems.add(&key, "This field is not allowed.");
            continue;
        };
        if input.has(field.name) {
            problems.add(
                &key,
                format!(
                    "The {} field is given twice (under two names).",
                    field.display()
                ),
            );
            continue;
        }
        let required = endpoint.requires(field);
        if required && (value.is_null() || value.as_str().is_some_and(|s| s.trim().is_empty())) {
            problems.add(&key, "This field is required.");
            continue;
        }
        // Blank strings mean "not given" (Coolify's clients send "" for
        // unset fields): a setting keeps its default, a nullable one is
        // cleared. None is ever stored, as DynamoDB refuses empty strings.
        if matches!(field.kind, Str | OptStr) && value.as_str().is_some_and(|s| s.trim().is_empty())
        {
            if matches!(field.kind, OptStr) {
                input.set(field.name, Value::Null);
            }
            continue;
        }
        match value_of(field, value, repository) {
            Ok(v) => input.set(field.name, v),
            Err(messages) => messages.into_iter().for_each(|m| problems.add(&key, m)),
        }
    }
    for field in endpoint.required() {
        if !input.has(field.name) && !problems.0.contains_key(field.name) {
            problems.add(field.name, "This field is required.");
        }
    }
    if endpoint != Endpoint::Patch
        && input.str("environment_name").is_none()
        && input.str("environment_uuid").is_none()
    {
        let m = "You need to provide at least one of environment_name or environment_uuid.";
        problems.add("environment_name", m);
        problems.add("environment_uuid", m);
    }
    problems.into_result()?;
    Ok(input)
}

/// One field's value after its type, length and format rules.
fn value_of(field: &Field, value: Value, repository: Check) -> Result<Value, Vec<String>> {
    let attr = field.display();
    let text = |v: &Value, nullable: bool| -> Result<Option<String>, Vec<String>> {
        match v {
            Value::Null if nullable => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(vec![format!("The {attr} field must be a string.")]),
        }
    };
    // Texts are bounded in bytes, so an application always fits in one item.
    let bytes = matches!(field.kind, Text | OptText);
    let checked = |s: String| -> Result<Value, Vec<String>> {
        let mut errors = Vec::new();
        if bytes && s.len() > field.max {
            errors.push(format!(
                "The {attr} field must not be greater than {} bytes.",
                field.max
            ));
        } else if s.chars().count() > field.max {
            errors.push(format!(
                "The {attr} field must not be greater than {} characters.",
                field.max
            ));
        }
        if s.contains('\0') {
            errors.push(format!("The {attr} field must not contain NUL characters."));
        }
        let check = if field.name == "git_repository" {
            Some(repository)
        } else {
            field.check
        };
        // Format checks run only on texts within their bounds (a compose
        // file past its limit is not parsed at all).
        if errors.is_empty()
            && let Some(check) = check.filter(|_| !s.is_empty() || field.name == "dockerfile")
            && let Err(e) = check(&attr, &s)
        {
            errors.push(e);
        }
        if errors.is_empty() {
            Ok(Value::String(s))
        } else {
            Err(errors)
        }
    };
    match field.kind {
        Str => match text(&value, false)? {
            None => Ok(Value::Null),
            Some(s) => checked(s.trim().to_string()),
        },
        OptStr => match text(&value, true)? {
            None => Ok(Value::Null),
            Some(s) => checked(s),
        },
        Text | OptText => match text(&value, matches!(field.kind, OptText))? {
            None => Ok(Value::Null),
            Some(s) => checked(decode_text(s)),
        },
        Bool | OptBool => match value {
            Value::Bool(_) => Ok(value),
            Value::Null if matches!(field.kind, OptBool) => Ok(value),
            _ => Err(vec![format!("The {attr} field must be true or false.")]),
        },
        Int(min, max) => match value.as_i64().filter(|_| value.is_i64() || value.is_u64()) {
            Some(n) if n < min => Err(vec![format!("The {attr} field must be at least {min}.")]),
            Some(n) if n > max => Err(vec![format!(
                "The {attr} field must not be greater than {max}."
            )]),
            Some(_) => Ok(value),
            None => Err(vec![format!("The {attr} field must be an integer.")]),
        },
        OneOf(allowed) | OptOneOf(allowed) => match &value {
            Value::Null if matches!(field.kind, OptOneOf(_)) => Ok(value),
            Value::String(s) if allowed.contains(&s.as_str()) => Ok(value),
            _ => Err(vec![format!(
                "The selected {attr} is invalid. Allowed: {}.",
                allowed.join(", ")
            )]),
        },
        ComposeDomains => compose_domains(value),
    }
}

/// Canonical base64 of UTF-8 text is decoded; anything else is taken as
/// the text itself.
fn decode_text(raw: String) -> String {
    if raw.is_empty() || !raw.len().is_multiple_of(4) {
        return raw;
    }
    match STANDARD.decode(&raw) {
        Ok(bytes) if STANDARD.encode(&bytes) == raw => String::from_utf8(bytes).unwrap_or(raw),
        _ => raw,
    }
}

fn compose_domains(value: Value) -> Result<Value, Vec<String>> {
    const SHAPE: &str = "An item in the docker_compose_domains array has invalid fields. Only a name and domain field are supported.";
    let Value::Array(items) = &value else {
        return match value {
            Value::Null => Ok(Value::Null),
            _ => Err(vec![
                "The docker compose domains field must be an array.".into(),
            ]),
        };
    };
    let mut errors = Vec::new();
    if items.len() > MAX_DOMAINS {
        errors.push(format!(
            "The docker compose domains field must not have more than {} items.",
            MAX_DOMAINS
        ));
    }
    for item in items {
        let Some(obj) = item.as_object() else {
            errors.push(SHAPE.to_string());
            continue;
        };
        if obj.keys().any(|k| k != "name" && k != "domain") {
            errors.push(SHAPE.to_string());
        }
        match obj.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() && n.len() <= 255 => {}
            _ => errors.push("Each docker_compose_domains item needs a service name.".into()),
        }
        match obj.get("domain") {
            None | Some(Value::Null) => {}
            Some(Value::String(d)) => {
                if let Err(e) = DomainList::parse(d) {
                    errors.extend(e);
                }
            }
            Some(_) => {
                errors.push("The domain of a docker_compose_domains item must be a string.".into())
            }
        }
    }
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::model::checks;
    use serde_json::json;

    fn errors(body: Value, endpoint: Endpoint) -> BTreeMap<String, Vec<String>> {
        match parse(
            body.as_object().unwrap().clone(),
            endpoint,
            checks::git_repository,
        ) {
            Err(Error::Invalid(e)) => e,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn types_are_strict() {
        let e = errors(
            json!({"name": 5, "is_static": "true", "health_check_interval": "5",
                   "build_pack": "rails", "ports_exposes": 3000, "redirect": "nope"}),
            Endpoint::Patch,
        );
        assert_eq!(e["name"], ["The name field must be a string."]);
        assert_eq!(
            e["is_static"],
            ["The is static field must be true or false."]
        );
        assert_eq!(
            e["health_check_interval"],
            ["The health check interval field must be an integer."]
        );
        assert!(e["build_pack"][0].starts_with("The selected build pack is invalid."));
        assert_eq!(
            e["ports_exposes"],
            ["The ports exposes field must be a string."]
        );
        assert!(e.contains_key("redirect"));
    }

    #[test]
    fn base64_text_is_decoded() {
        assert_eq!(decode_text("RlJPTSBuZ2lueA==".into()), "FROM nginx");
        assert_eq!(decode_text("FROM nginx".into()), "FROM nginx");
        // Line-wrapped base64 is not canonical: taken as text.
        assert_eq!(decode_text("RlJP\nTSBu".into()), "RlJP\nTSBu");
    }
}
