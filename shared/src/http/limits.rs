//! Lambda's response limit. A synchronous invocation answers at most
//! 6 MB, counted on the JSON envelope API Gateway receives, where the body
//! is one JSON string (so every quote and backslash of a JSON body counts
//! twice). Each route declares what its list elements may leave out
//! ([`Limits`]); [`fit`] applies it when, and only when, a response would
//! pass the limit, and says so in `X-Omitted-Fields`. Pages keep their
//! length: Gitea clients read a short page as the last one.

use lambda_http::{Body, http::HeaderValue};
use serde_json::Value;

use super::{Limits, Response};

/// Lambda's limit on a synchronous response payload.
pub const LAMBDA_RESPONSE_LIMIT: usize = 6 * 1024 * 1024;

/// What a response may take, leaving room for the envelope's own fields.
pub const RESPONSE_BUDGET: usize = 6_000_000;

/// Bytes `text` takes as a JSON string, quotes included.
pub fn json_string_len(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// Size of the Lambda response envelope for `res`: status, headers (which
/// may be sent twice, as single and multi-value headers) and the body as a
/// JSON string (base64 for binary bodies).
pub fn envelope_len(res: &Response) -> usize {
    let headers: usize = res
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.as_bytes().len() + 8)
        .sum();
    let body = match res.body() {
        Body::Text(t) => json_string_len(t),
        Body::Binary(b) => b.len().div_ceil(3) * 4 + 2,
        _ => 2,
    };
    256 + 2 * headers + body
}

/// The response cannot be made small enough (a bug: the bounds on stored
/// data are meant to make this impossible).
#[derive(Debug)]
pub struct TooLarge(pub usize);

/// Makes `res` fit: unchanged when it does, else its list elements lose
/// the declared `omit` fields, then keep only the `keep` fields.
pub fn fit(res: &mut Response, limits: &Limits) -> Result<(), TooLarge> {
    let size = envelope_len(res);
    if size <= RESPONSE_BUDGET {
        return Ok(());
    }
    let (items, newline) = match res.body() {
        Body::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(items)) => (items, t.ends_with('\n')),
            _ => return Err(TooLarge(size)),
        },
        _ => return Err(TooLarge(size)),
    };
    let mut fitter = ListFitter::new(*limits);
    items.into_iter().for_each(|i| fitter.push(i));
    let (items, omitted) = fitter.finish();
    let mut text = serde_json::to_string(&items).unwrap_or_else(|_| "[]".into());
    if newline {
        text.push('\n');
    }
    *res.body_mut() = Body::Text(text);
    if let Some(v) = omitted.and_then(|o| HeaderValue::from_str(&o).ok()) {
        res.headers_mut().insert("x-omitted-fields", v);
    }
    match envelope_len(res) {
        fits if fits <= RESPONSE_BUDGET => Ok(()),
        too_large => Err(TooLarge(too_large)),
    }
}

/// Builds a large list one element at a time, applying the route's limits
/// as soon as the list would pass the budget, so memory holds about one
/// response, not every element as stored (a team's applications may each
/// carry hundreds of kilobytes of inline files).
pub struct ListFitter {
    limits: Limits,
    items: Vec<Value>,
    /// Envelope bytes the items take so far.
    size: usize,
    /// 0: whole, 1: `omit` applied, 2: `keep` applied.
    stage: u8,
}

impl ListFitter {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            items: Vec::new(),
            size: 0,
            stage: 0,
        }
    }

    fn trim(&self, item: &mut Value) {
        let Some(map) = item.as_object_mut() else {
            return;
        };
        if self.stage >= 1 {
            self.limits.omit.iter().for_each(|f| remove_path(map, f));
        }
        // (`keep` empty: no keep stage is ever reached.)
        if self.stage >= 2 && !self.limits.keep.is_empty() {
            map.retain(|k, _| self.limits.keep.contains(&k.as_str()));
        }
    }

    fn cost(item: &Value) -> usize {
        // As one element of the body, inside the envelope's JSON string.
        json_string_len(&item.to_string()) - 1
    }

    /// The last stage the route declares: 0 none, 1 `omit`, 2 `keep`.
    fn last_stage(&self) -> u8 {
        if !self.limits.keep.is_empty() {
            2
        } else {
            u8::from(!self.limits.omit.is_empty())
        }
    }

    pub fn push(&mut self, mut item: Value) {
        self.trim(&mut item);
        self.size += Self::cost(&item);
        self.items.push(item);
        while self.size > RESPONSE_BUDGET && self.stage < self.last_stage() {
            self.stage += 1;
            let mut items = std::mem::take(&mut self.items);
            items.iter_mut().for_each(|i| self.trim(i));
            self.size = items.iter().map(Self::cost).sum();
            self.items = items;
        }
    }

    /// Orders the elements (after building: they arrive in storage order).
    pub fn sort_by(mut self, compare: impl FnMut(&Value, &Value) -> std::cmp::Ordering) -> Self {
        self.items.sort_by(compare);
        self
    }

    /// The list, and the `X-Omitted-Fields` value if anything was left out.
    pub fn finish(self) -> (Vec<Value>, Option<String>) {
        let header = match self.stage {
            0 => None,
            1 => Some(self.limits.omit.join(",")),
            _ => Some(format!("all but {}", self.limits.keep.join(","))),
        };
        (self.items, header)
    }
}

/// Removes `a.b.c` from an object; each step goes into an object, or into
/// every object of an array (`labels.description`).
fn remove_path(item: &mut serde_json::Map<String, Value>, path: &str) {
    match path.split_once('.') {
        None => {
            item.remove(path);
        }
        Some((head, rest)) => match item.get_mut(head) {
            Some(Value::Object(inner)) => remove_path(inner, rest),
            Some(Value::Array(list)) => list
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(|inner| remove_path(inner, rest)),
            _ => {}
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_count_their_escapes() {
        assert_eq!(json_string_len("ab"), 4);
        assert_eq!(json_string_len("\"\\"), 6);
        assert_eq!(json_string_len("\u{1}"), 8);
        assert_eq!(
            json_string_len("é\n"),
            serde_json::to_string("é\n").unwrap().len()
        );
    }

    fn list_of(n: usize, body: &str) -> Response {
        let items: Vec<Value> = (0..n)
            .map(|i| {
                serde_json::json!({
                    "id": i, "body": body, "milestone": {"title": "m", "description": body}
                })
            })
            .collect();
        Response::new(Body::Text(serde_json::to_string(&items).unwrap() + "\n"))
    }

    #[test]
    fn small_lists_are_untouched_and_large_ones_lose_declared_fields() {
        let limits = Limits::list(&["body", "milestone.description"]);
        let mut small = list_of(3, "x");
        fit(&mut small, &limits).unwrap();
        assert!(small.headers().get("x-omitted-fields").is_none());

        // Quotes double in the envelope: 50 × 2 × 70,000 × 2 passes 6 MB.
        let mut big = list_of(50, &"\"".repeat(70_000));
        fit(&mut big, &limits).unwrap();
        assert_eq!(
            big.headers()["x-omitted-fields"],
            "body,milestone.description"
        );
        let Body::Text(t) = big.body() else { panic!() };
        assert!(t.ends_with('\n'));
        let v: Value = serde_json::from_str(t).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 50, "the page keeps its length");
        assert_eq!(
            v[7],
            serde_json::json!({"id": 7, "milestone": {"title": "m"}})
        );
        assert!(envelope_len(&big) <= RESPONSE_BUDGET);
    }

    #[test]
    fn the_fitter_trims_as_it_goes() {
        let limits = Limits {
            body: 0,
            omit: &["body"],
            keep: &["id"],
            reads: Limits::LISTING,
        };
        let mut f = ListFitter::new(limits);
        f.push(serde_json::json!({"id": 0, "body": "small", "x": 1}));
        let (items, header) = ListFitter::new(limits).finish();
        assert!(items.is_empty() && header.is_none());
        for i in 1..60 {
            f.push(serde_json::json!({"id": i, "body": "\"".repeat(60_000), "x": 1}));
        }
        let (items, header) = f.finish();
        assert_eq!(items.len(), 60);
        assert_eq!(header.as_deref(), Some("body"));
        assert_eq!(items[0], serde_json::json!({"id": 0, "x": 1}));
    }

    #[test]
    fn keep_is_the_last_stage_and_failure_is_reported() {
        let limits = Limits {
            body: 0,
            omit: &["body"],
            keep: &["id"],
            reads: Limits::LISTING,
        };
        let mut big = list_of(50, &"x".repeat(130_000));
        fit(&mut big, &limits).unwrap();
        assert_eq!(big.headers()["x-omitted-fields"], "all but id");
        let mut hopeless = list_of(50, &"x".repeat(130_000));
        assert!(fit(&mut hopeless, &Limits::list(&[])).is_err());
    }
}
