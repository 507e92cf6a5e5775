//! A delivery as Gitea puts it on the wire (`services/webhook/deliver.go`):
//! the JSON payload as the body (or a form with `payload=`), its HMAC-SHA256
//! under the hook's secret, and the delivery, event and signature headers
//! under Gitea's, Gogs' and GitHub's names, so receivers written for any of
//! them verify it unchanged. The signature is over the JSON payload, in
//! both content types, as Gitea signs it.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::{delivery::DeliveryRecord, events::header_of, model::HookRecord, views::REDACTED};

/// What goes out: the body and the headers, and the headers as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub body: Vec<u8>,
    pub headers: Vec<(&'static str, String)>,
}

impl Outgoing {
    /// The headers with the `Authorization` value hidden (signatures are
    /// kept: they prove nothing without the secret).
    pub fn recorded_headers(&self) -> Vec<(String, String)> {
        self.headers
            .iter()
            .map(|(name, value)| {
                let shown = match *name {
                    "Authorization" => REDACTED.to_string(),
                    _ => value.clone(),
                };
                (name.to_string(), shown)
            })
            .collect()
    }
}

/// The hex HMAC-SHA256 of `payload` under `secret` ("" without a secret,
/// as Gitea sends it).
pub fn signature(secret: &str, payload: &[u8]) -> String {
    if secret.is_empty() {
        return String::new();
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(payload);
    hex::encode(mac.finalize().into_bytes())
}

/// The request for `delivery` of `payload` (JSON) to `hook`.
pub fn outgoing(hook: &HookRecord, delivery: &DeliveryRecord, payload: &[u8]) -> Outgoing {
    let (content_type, body) = match hook.content_type.as_str() {
        "form" => (
            "application/x-www-form-urlencoded",
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("payload", &String::from_utf8_lossy(payload))
                .finish()
                .into_bytes(),
        ),
        _ => ("application/json", payload.to_vec()),
    };
    let sig = signature(&hook.secret, payload);
    let event = header_of(&delivery.event).to_string();
    let kind = delivery.event.clone();
    let id = delivery.id.clone();
    let mut headers = vec![
        ("Content-Type", content_type.to_string()),
        ("User-Agent", "GiteaServer".to_string()),
        ("X-Gitea-Delivery", id.clone()),
        ("X-Gitea-Event", event.clone()),
        ("X-Gitea-Event-Type", kind.clone()),
        ("X-Gitea-Signature", sig.clone()),
        ("X-Gogs-Delivery", id.clone()),
        ("X-Gogs-Event", event.clone()),
        ("X-Gogs-Event-Type", kind.clone()),
        ("X-Gogs-Signature", sig.clone()),
        ("X-GitHub-Delivery", id),
        ("X-GitHub-Event", event),
        ("X-GitHub-Event-Type", kind),
        ("X-Hub-Signature-256", format!("sha256={sig}")),
    ];
    if !hook.authorization_header.is_empty() {
        headers.push(("Authorization", hook.authorization_header.clone()));
    }
    Outgoing { body, headers }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{HookOwner, NewHook, delivery::PENDING};

    fn hook(content_type: &str) -> HookRecord {
        NewHook {
            kind: "gitea".into(),
            url: "http://127.0.0.1:9/".into(),
            content_type: content_type.into(),
            secret: "It's a Secret to Everybody".into(),
            authorization_header: "Bearer t0ken".into(),
            events: vec!["issues".into()],
            branch_filter: String::new(),
            active: true,
        }
        .record(3, HookOwner::Site, 0)
    }

    fn delivery() -> DeliveryRecord {
        DeliveryRecord {
            id: "d-1".into(),
            hook_id: 3,
            hook_pk: "SITEHOOKS".into(),
            event: "issue_label".into(),
            action: "label_updated".into(),
            payload: "p".into(),
            state: PENDING.into(),
            attempts: 0,
            due: 0,
            touch: 0,
            redelivery_of: String::new(),
            test: false,
            created: 0,
        }
    }

    #[test]
    fn the_signature_is_github_s_documented_example() {
        // GitHub's "validating webhook deliveries" test vector.
        assert_eq!(
            signature("It's a Secret to Everybody", b"Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
        assert_eq!(signature("", b"x"), "");
    }

    #[test]
    fn json_and_form_bodies_carry_gitea_s_headers() {
        let payload = br#"{"a":"b c"}"#;
        let out = outgoing(&hook("json"), &delivery(), payload);
        assert_eq!(out.body, payload);
        let get = |out: &Outgoing, name: &str| {
            out.headers
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        let sig = signature("It's a Secret to Everybody", payload);
        assert_eq!(get(&out, "X-Gitea-Event"), "issues");
        assert_eq!(get(&out, "X-Gitea-Event-Type"), "issue_label");
        assert_eq!(get(&out, "X-Gitea-Signature"), sig);
        assert_eq!(get(&out, "X-Hub-Signature-256"), format!("sha256={sig}"));
        assert_eq!(get(&out, "X-GitHub-Delivery"), "d-1");
        assert_eq!(get(&out, "Authorization"), "Bearer t0ken");
        let recorded = out.recorded_headers();
        assert!(recorded.contains(&("Authorization".into(), REDACTED.into())));
        assert!(!format!("{recorded:?}").contains("t0ken"));

        let form = outgoing(&hook("form"), &delivery(), payload);
        assert_eq!(form.body, b"payload=%7B%22a%22%3A%22b+c%22%7D");
        assert_eq!(get(&form, "X-Gitea-Signature"), sig, "over the JSON");
        assert_eq!(
            get(&form, "Content-Type"),
            "application/x-www-form-urlencoded"
        );
    }
}
