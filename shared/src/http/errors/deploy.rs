//! The deploy area's errors as the deploy API answers them: Coolify's
//! statuses and bodies (the conversion is the deploy crate's,
//! `crates/deploy/src/errors.rs`).

#![cfg(test)]
use serde_json::json;

use crate::{
    Error,
    deploy::{Error as DeployError, Object, model::domains::Conflict, store::quota},
    http::{
        Dialect,
        errors::{ToResponse, tests::cfg},
        response::body_json,
    },
};

/// Each case's status and body, as the deploy API answers it.
fn shown(e: DeployError) -> (u16, serde_json::Value) {
    let r = Error::from(e).into_response(Dialect::Deploy, &cfg(), "rid");
    (r.status().as_u16(), body_json(&r))
}

#[test]
fn messages_are_coolifys() {
    let rows = [
        (
            DeployError::NotFound(Object::PrivateKey),
            404,
            "Private Key not found.",
        ),
        (
            DeployError::Changed(Object::Application),
            409,
            "The application was changed by another request; retry.",
        ),
        (
            DeployError::InUse(Object::Server),
            400,
            "Server has resources, so you need to delete them before.",
        ),
        (
            DeployError::DeployNotAllowed,
            403,
            "Missing required permissions: deploy",
        ),
        (
            DeployError::QuotaFull(Object::PrivateKey),
            400,
            "The team already has 1000 private keys; delete some first.",
        ),
        (
            DeployError::TooManyChildren {
                parent: Object::Project,
                max: 40,
            },
            400,
            "A project can have at most 40 environments.",
        ),
        (
            DeployError::NetworkExists("n".into()),
            409,
            "A destination with network n already exists on this server.",
        ),
    ];
    for (e, status, message) in rows {
        let row = format!("{e:?}");
        assert_eq!(shown(e), (status, json!({ "message": message })), "{row}");
    }
}

#[test]
fn quota_messages_name_the_counter() {
    for kind in quota::Kind::ALL {
        let message = format!(
            "The team already has 1000 {}; delete some first.",
            kind.attribute().replace('_', " ")
        );
        assert_eq!(
            shown(DeployError::QuotaFull(kind.object())),
            (400, json!({ "message": message })),
            "{kind:?}"
        );
    }
}

#[test]
fn domain_conflicts_list_each_holder() {
    let c = Conflict {
        domain: "https://a.io".into(),
        resource_name: "web".into(),
        resource_uuid: Some("u".into()),
        resource_type: "application",
        message: "Domain https://a.io is already in use by application 'web'".into(),
    };
    let (status, body) = shown(DeployError::DomainConflicts(vec![c]));
    assert_eq!(status, 409);
    assert_eq!(
        body,
        json!({
            "message": "Domain conflicts detected. Use force_domain_override=true to proceed.",
            "warning": "Using the same domain for multiple resources can cause routing conflicts and unpredictable behavior.",
            "conflicts": [{"domain": "https://a.io", "resource_name": "web", "resource_uuid": "u",
                "resource_type": "application",
                "message": "Domain https://a.io is already in use by application 'web'"}],
        })
    );
}
