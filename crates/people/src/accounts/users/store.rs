//! Where users and organisations live: `OWNER#<folded name>`, with an
//! e-mail guard item per address, both written only if free.

use super::model::{NewUser, OwnerKind, UserRecord, Users};
use crate::{
    accounts::{Error, Result, names::fold, password},
    db::{self, Consistency, Db, DbError, Tx, keys},
    time,
};

/// The users of `logins` (folded), for rendering: one batched read (100
/// keys a call, all at once), eventually consistent (see
/// `db::Consistency`); each login once.
pub async fn users_of<'a>(db: &Db, logins: impl IntoIterator<Item = &'a str>) -> Result<Users> {
    let mut logins: Vec<&str> = logins.into_iter().collect();
    logins.sort_unstable();
    logins.dedup();
    let wanted = logins.iter().map(|l| keys::owner(l)).collect();
    let mut out = Users::default();
    for item in db
        .batch_get_many(wanted, None, Consistency::Eventual)
        .await?
    {
        out.insert(db::from_item(item)?);
    }
    Ok(out)
}

/// Adds the record under its key, written only if the name is free.
pub(in crate::accounts) fn put_new_owner(tx: &mut Tx, rec: &UserRecord) -> Result<()> {
    let mut item = db::to_item(rec)?;
    item.extend(keys::owner(&rec.name));
    tx.put_if_absent(item)?;
    Ok(())
}

/// Adds the owner's id item (`keys::owner_by_id`). Unconditional, so it
/// goes after the guards whose failures name what was taken.
pub(in crate::accounts) fn put_owner_id(tx: &mut Tx, rec: &UserRecord) -> Result<()> {
    let mut item = keys::owner_by_id(rec.id);
    item.insert("name".into(), db::s(&rec.name));
    tx.put(item)?;
    Ok(())
}

/// The name of the owner with id `id`, for owners made since ids were
/// filed (older ones are not found).
pub async fn name_by_id(db: &Db, id: i64) -> Result<Option<String>> {
    let item = db.get(keys::owner_by_id(id)).await?;
    Ok(item.map(|i| db::text(&i, "name").to_string()))
}

/// Adds the e-mail guard item (unique addresses across users).
fn put_email_guard(tx: &mut Tx, email: &str, owner: &str) -> Result<()> {
    let mut item = keys::email(email);
    item.insert("owner".into(), db::s(fold(owner)));
    tx.put_if_absent(item)?;
    Ok(())
}

/// Maps a failed uniqueness guard to what was taken.
pub(in crate::accounts) fn taken(e: DbError, name: &str, email: &str) -> Error {
    match e.failed_condition() {
        Some(0) => Error::NameTaken(name.to_string()),
        Some(1) => Error::EmailTaken(email.to_string()),
        _ => e.into(),
    }
}

pub async fn create(db: &Db, new: NewUser) -> Result<UserRecord> {
    let password_hash = match &new.password {
        Some(p) => Some(password::hash(p).map_err(Error::Hashing)?),
        None => None,
    };
    let rec = UserRecord {
        id: db.next_id("owner").await?,
        name: new.name.to_string(),
        kind: OwnerKind::User,
        email: new.email.as_str().to_string(),
        full_name: new.full_name,
        password_hash,
        visibility: new.visibility,
        is_admin: new.is_admin,
        restricted: new.restricted,
        prohibit_login: false,
        description: String::new(),
        website: String::new(),
        location: String::new(),
        owners_team: None,
        repo_admin_change_team_access: false,
        created: time::now(),
    };
    let mut tx = db.tx();
    put_new_owner(&mut tx, &rec)?;
    put_email_guard(&mut tx, &rec.email, &rec.name)?;
    put_owner_id(&mut tx, &rec)?;
    db.transact(tx)
        .await
        .map_err(|e| taken(e, &rec.name, &rec.email))?;
    Ok(rec)
}

/// A user or organisation by name (case-insensitive).
pub async fn get(db: &Db, name: &str) -> Result<Option<UserRecord>> {
    Ok(db.get_as(keys::owner(name)).await?)
}
