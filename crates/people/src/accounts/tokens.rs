//! Personal access tokens. Three items per token, written and removed in
//! one transaction: the lookup item keyed by the secret's SHA-256 (what
//! authentication reads), the listing item under the user, and a guard that
//! keeps token names unique per user. No item holds the secret.

use serde::{Deserialize, Serialize};

use super::{
    Error, Result,
    names::{fold, same},
    principal::{self, Caller, Via},
    scope::Scopes,
    secret as token, teams,
    users::UserRecord,
};
use crate::{
    db::{self, Db, keys},
    time,
};

/// What authentication needs, stored under `TOKEN#<sha256>`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Grant {
    pub id: i64,
    /// Lower-case name of the owning user.
    pub user: String,
    pub scopes: Vec<String>,
    /// Deploy-API team (an organisation or the user's own namespace).
    pub team: String,
    /// The user as they were when the token was made (no password hash),
    /// so authenticating is one read. Users have no edit route; one that
    /// is added must rewrite its user's grants. Tokens made before this
    /// copy existed have none and read the user item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<UserRecord>,
}

/// A token as listed under its user (no secret, only its hash).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TokenRecord {
    pub id: i64,
    pub name: String,
    pub user: String,
    pub hash: String,
    pub last_eight: String,
    pub scopes: Vec<String>,
    pub team: String,
    pub created: i64,
}

/// A validated token request.
pub struct NewToken {
    pub name: String,
    pub scopes: Scopes,
    pub team: String,
}

/// A token request whose team is still to be checked against the user's
/// memberships (`None`: the user's own namespace).
#[derive(Debug)]
pub struct TokenRequest {
    pub name: String,
    pub scopes: Scopes,
    pub team: Option<String>,
}

impl TokenRequest {
    /// The name is 1 to 255 characters (trimmed); at least one known scope.
    pub fn parse(name: &str, scopes: &[String], team: Option<String>) -> Result<Self> {
        let name = name.trim().to_string();
        if name.is_empty() || name.chars().count() > 255 {
            return Err(Error::invalid("name", "must be 1 to 255 characters"));
        }
        let scopes = Scopes::parse(scopes).map_err(|e| Error::BadScopes(e.to_string()))?;
        if scopes.is_empty() {
            return Err(Error::NoScope);
        }
        let team = team.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        Ok(Self { name, scopes, team })
    }
}

/// The user whose tokens `name` names, once the caller may manage them:
/// signed in with a password (a token cannot mint tokens, not even a site
/// admin's, whose scopes would otherwise be escaped), as that user or as a
/// site admin.
pub async fn manageable(db: &Db, caller: &Caller, name: &str) -> Result<UserRecord> {
    let me = principal::signed_in(caller)?;
    let user = principal::find_user(db, name, caller).await?;
    if let Via::Token { .. } = me.via {
        return Err(Error::PasswordRequired);
    }
    if me.is_site_admin() || me.user.id == user.id {
        return Ok(user);
    }
    Err(Error::NotTokenOwner)
}

/// Creates the token a request asks for: its team must be the user or an
/// organisation the user belongs to.
pub async fn issue(db: &Db, user: &UserRecord, req: TokenRequest) -> Result<(TokenRecord, String)> {
    let team = match req.team {
        None => user.name.clone(),
        Some(t) if same(&t, &user.name) => t,
        Some(t) if teams::is_member(db, &t, &user.name).await? => t,
        Some(t) => {
            return Err(Error::invalid(
                "team",
                format!("{t:?} is neither this user nor an organization the user belongs to"),
            ));
        }
    };
    let new = NewToken {
        name: req.name,
        scopes: req.scopes,
        team,
    };
    create(db, user, new).await
}

/// Creates a token for `user`; returns the record and the secret, which
/// exists only in this response.
pub async fn create(db: &Db, user: &UserRecord, new: NewToken) -> Result<(TokenRecord, String)> {
    let secret = token::generate();
    let rec = create_with_secret(db, user, new, &secret).await?;
    Ok((rec, secret))
}

/// Stores a token whose secret the operator chose (bootstrap's
/// `BOOTSTRAP_ADMIN_TOKEN`); everything else uses [`create`].
pub async fn create_with_secret(
    db: &Db,
    holder: &UserRecord,
    new: NewToken,
    secret: &str,
) -> Result<TokenRecord> {
    let user = holder.lower_name();
    let rec = TokenRecord {
        id: db.next_id("token").await?,
        name: new.name,
        user: user.clone(),
        hash: token::hash(secret),
        last_eight: token::last_eight(secret),
        scopes: new.scopes.to_strings(),
        team: fold(&new.team),
        created: time::now(),
    };
    // The grant carries its user, so authenticating is one read; the
    // password hash stays out of it.
    let holder = Some(UserRecord {
        password_hash: None,
        ..holder.clone()
    });
    let grant = Grant {
        id: rec.id,
        user: user.clone(),
        scopes: rec.scopes.clone(),
        team: rec.team.clone(),
        holder,
    };
    let mut lookup = db::to_item(&grant)?;
    lookup.extend(keys::token_hash(&rec.hash));
    let mut listing = db::to_item(&rec)?;
    listing.extend(keys::user_token(&user, rec.id));
    let mut guard = keys::user_token_name(&user, &rec.name);
    guard.insert("id".into(), db::n(rec.id));
    let mut tx = db.tx();
    tx.put_if_absent(lookup)?
        .put_if_absent(listing)?
        .put_if_absent(guard)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(2) => Error::TokenNameTaken,
            _ => e.into(),
        })?;
    Ok(rec)
}

/// The grant behind a secret's hash (`secret::hash`), if the token exists.
pub async fn lookup_hash(db: &Db, hash: &str) -> Result<Option<Grant>> {
    Ok(db.get_as(keys::token_hash(hash)).await?)
}

/// A user's tokens, oldest first.
pub async fn list(db: &Db, user: &str) -> Result<Vec<TokenRecord>> {
    let items = db.query_prefix(&keys::owner_pk(user), "TOKEN#").await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

/// Revokes a token named by id or by name (Gitea accepts both).
pub async fn delete(db: &Db, user: &str, id_or_name: &str) -> Result<()> {
    let tokens = list(db, user).await?;
    let found = match id_or_name.parse::<i64>() {
        Ok(id) => tokens
            .iter()
            .find(|t| t.id == id)
            .or_else(|| tokens.iter().find(|t| t.name == id_or_name)),
        Err(_) => tokens.iter().find(|t| t.name == id_or_name),
    }
    .ok_or_else(|| Error::NoSuchToken(id_or_name.to_string()))?;
    let mut tx = db.tx();
    tx.delete(keys::token_hash(&found.hash))?
        .delete(keys::user_token(user, found.id))?
        .delete(keys::user_token_name(user, &found.name))?;
    db.transact(tx).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn token_requests() {
        let r =
            TokenRequest::parse(" laptop ", &strings(&["write:issue"]), Some("  ".into())).unwrap();
        assert_eq!(r.name, "laptop");
        assert_eq!(r.team, None, "a blank team is the user's own");
        assert!(r.scopes.has(
            crate::accounts::scope::Category::Issue,
            crate::accounts::scope::Level::Read
        ));
        let r = TokenRequest::parse("d", &strings(&["root"]), Some(" Acme ".into())).unwrap();
        assert_eq!(r.team.as_deref(), Some("Acme"));
    }

    #[test]
    fn refused_token_requests() {
        let long = "x".repeat(256);
        type Row<'a> = (&'a str, Vec<String>, fn(&Error) -> bool);
        let cases: Vec<Row> = vec![
            ("", strings(&["all"]), |e| {
                matches!(e, Error::Invalid { .. })
            }),
            ("   ", strings(&["all"]), |e| {
                matches!(e, Error::Invalid { .. })
            }),
            (&long, strings(&["all"]), |e| {
                matches!(e, Error::Invalid { .. })
            }),
            ("t", strings(&[]), |e| matches!(e, Error::NoScope)),
            ("t", strings(&["write:everything"]), |e| {
                matches!(e, Error::BadScopes(_))
            }),
        ];
        for (name, scopes, want) in cases {
            let err = TokenRequest::parse(name, &scopes, None).unwrap_err();
            assert!(want(&err), "{name:?} {scopes:?}: got {err:?}");
        }
    }
}
