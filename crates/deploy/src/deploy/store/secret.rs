//! Secret attributes of deploy items (deploy-key PEMs, provider-app client
//! and webhook secrets), sealed in place before the item is written and
//! opened only where something needs the clear text (`crate::seal`). Each
//! attribute is sealed with its item's key and its own name as context,
//! so no sealed value opens on another item or in another attribute.
//!
//! Items written before sealing hold the clear text: [`open`] returns it
//! as it is, and `check-data --repair` seals them ([`seal_stored`]).

use crate::{
    db::{self, Change, Cond, Db, Item, table},
    deploy::{error::Result, team::Team},
    seal::{self, SealError},
};

fn context(key: &Item, attribute: &str) -> String {
    format!("{}#{attribute}", seal::context(key))
}

fn key_of(item: &Item) -> Item {
    item.iter()
        .filter(|(k, _)| *k == table::PK || *k == table::SK)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Seals each string attribute of `item` named in `attributes` (absent
/// ones stay absent; sealed ones are left as they are).
pub async fn seal(db: &Db, team: &Team, item: &mut Item, attributes: &[&str]) -> Result<()> {
    let key = key_of(item);
    let cipher = team.cipher(db).await?;
    for name in attributes {
        if let Some(db::Value::S(plain)) = item.get(*name)
            && !seal::is_sealed(plain)
        {
            let sealed = cipher.seal(&context(&key, name), plain.as_bytes());
            item.insert((*name).to_string(), db::s(sealed));
        }
    }
    Ok(())
}

/// The clear text of attribute `name` of the item under `key`, as read
/// (`stored`): opened if sealed, as it is if an older release wrote it.
pub async fn open(db: &Db, team: &Team, key: &Item, name: &str, stored: &str) -> Result<String> {
    if !seal::is_sealed(stored) {
        return Ok(stored.to_string());
    }
    let cipher = team.cipher(db).await?;
    let plain = cipher
        .open(&context(key, name), stored)
        .map_err(|_| SealError::Unreadable)?;
    Ok(String::from_utf8(plain).map_err(|_| SealError::Unreadable)?)
}

/// Seals, in place, the clear attributes of stored items of one kind (the
/// migration `check-data --repair` runs). Each item is rewritten on
/// condition that the attribute is unchanged, so a concurrent write wins.
/// Returns how many items it sealed.
pub async fn seal_stored(
    db: &Db,
    team: &Team,
    items: Vec<Item>,
    attributes: &[&str],
) -> Result<usize> {
    let mut sealed = 0;
    for item in items {
        let clear: Vec<&str> = attributes
            .iter()
            .copied()
            .filter(|a| matches!(item.get(*a), Some(db::Value::S(s)) if !seal::is_sealed(s)))
            .collect();
        if clear.is_empty() {
            continue;
        }
        let mut next = item.clone();
        seal(db, team, &mut next, &clear).await?;
        let mut tx = db.tx();
        let sealing = clear
            .iter()
            .fold(Change::new(), |c, a| c.set(a, next[*a].clone()));
        let unchanged = clear
            .iter()
            .map(|a| Cond::eq(a, item[*a].clone()))
            .reduce(Cond::and);
        tx.change(key_of(&item), sealing, unchanged)?;
        match db.transact(tx).await {
            Ok(()) => sealed += 1,
            Err(e) if e.failed_condition().is_some() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(sealed)
}
