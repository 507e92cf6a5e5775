//! Key layout of the single table. Every key is built here, so the access
//! patterns in `docs/data-model.md` can be checked against one file.

use super::{Item, s};

/// A primary key.
pub fn key(pk: &str, sk: &str) -> Item {
    Item::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))])
}

/// Sort key of the one "profile" item of an entity partition.
pub const PROFILE: &str = "PROFILE";

/// Users and organisations share one namespace, keyed by lower-case name.
pub fn owner_pk(name: &str) -> String {
    format!("OWNER#{}", name.to_lowercase())
}

pub fn owner(name: &str) -> Item {
    key(&owner_pk(name), PROFILE)
}

/// Uniqueness guard for an e-mail address.
pub fn email(address: &str) -> Item {
    key(&format!("EMAIL#{}", address.to_lowercase()), "EMAIL")
}

/// A token's lookup item, keyed by the SHA-256 of its secret.
pub fn token_hash(hash_hex: &str) -> Item {
    key(&format!("TOKEN#{hash_hex}"), "TOKEN")
}

/// A token as listed under its user.
pub fn user_token(user: &str, id: i64) -> Item {
    key(&owner_pk(user), &format!("TOKEN#{id:020}"))
}

/// Guard for token names, unique per user.
pub fn user_token_name(user: &str, name: &str) -> Item {
    key(&owner_pk(user), &format!("TOKENNAME#{name}"))
}

pub fn team_pk(id: i64) -> String {
    format!("TEAM#{id}")
}

pub fn team(id: i64) -> Item {
    key(&team_pk(id), PROFILE)
}

/// A team as listed under its organisation (also the unique-name guard).
pub fn org_team(org: &str, team_name: &str) -> Item {
    key(
        &owner_pk(org),
        &format!("TEAM#{}", team_name.to_lowercase()),
    )
}

pub fn team_member(team_id: i64, user: &str) -> Item {
    key(
        &team_pk(team_id),
        &format!("MEMBER#{}", user.to_lowercase()),
    )
}

/// A user's membership in one team of one organisation, stored under the
/// user so one query answers "which teams of org X is this user in".
pub fn membership(user: &str, org: &str, team_id: i64) -> Item {
    key(&owner_pk(user), &membership_sk(org, team_id))
}

pub fn membership_prefix(org: &str) -> String {
    format!("MEMBER#{}#", org.to_lowercase())
}

pub fn membership_sk(org: &str, team_id: i64) -> String {
    format!("{}{team_id:020}", membership_prefix(org))
}

/// `blocker` (a user or an organisation) blocks `blocked`.
pub fn block(blocker: &str, blocked: &str) -> Item {
    key(
        &owner_pk(blocker),
        &format!("BLOCK#{}", blocked.to_lowercase()),
    )
}
