//! Secret attributes of deploy items (deploy-key PEMs, provider-app client
//! and webhook secrets), sealed in place before the item is written and
//! opened only where something needs the clear text (`crate::seal`). Each
//! attribute is sealed with its item's key and its own name as context,
//! so no sealed value opens on another item or in another attribute.
//!
//! Items written before sealing hold the clear text: [`open`] returns it
//! as it is, and `check-data --repair` seals them ([`seal_stored`]).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::{
    db::{self, Db, Item},
    deploy::{error::Result, team::Team},
    seal::{self, SealError},
};

fn context(key: &Item, attribute: &str) -> String {
    format!("{}#{attribute}", seal::context(key))
}

fn key_of(item: &Item) -> Item {
    item.iter()
        .filter(|(k, _)| *k == "pk" || *k == "sk")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Seals each string attribute of `item` named in `attributes` (absent
/// ones stay absent; sealed ones are left as they are).
pub async fn seal(db: &Db, team: &Team, item: &mut Item, attributes: &[&str]) -> Result<()> {
    let key = key_of(item);
    let cipher = team.cipher(db).await?;
    for name in attributes {
        if let Some(AttributeValue::S(plain)) = item.get(*name)
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
            .filter(|a| matches!(item.get(*a), Some(AttributeValue::S(s)) if !seal::is_sealed(s)))
            .collect();
        if clear.is_empty() {
            continue;
        }
        let mut next = item.clone();
        seal(db, team, &mut next, &clear).await?;
        let mut tx = db.tx();
        let conditions: Vec<String> = (0..clear.len())
            .map(|i| format!("#a{i} = :was{i}"))
            .collect();
        let names: Vec<(String, String)> = clear
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("#a{i}"), a.to_string()))
            .collect();
        let sets: Vec<String> = (0..clear.len())
            .map(|i| format!("#a{i} = :now{i}"))
            .collect();
        let mut values: Vec<(String, AttributeValue)> = Vec::new();
        for (i, a) in clear.iter().enumerate() {
            values.push((format!(":was{i}"), item[*a].clone()));
            values.push((format!(":now{i}"), next[*a].clone()));
        }
        let names: Vec<(&str, &str)> = names
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let values: Vec<(&str, AttributeValue)> = values
            .iter()
            .map(|(a, b)| (a.as_str(), b.clone()))
            .collect();
        tx.update_if(
            key_of(&item),
            &format!("SET {}", sets.join(", ")),
            &names,
            &values,
            &conditions.join(" AND "),
        )?;
        match db.transact(tx).await {
            Ok(()) => sealed += 1,
            Err(e) if e.failed_condition().is_some() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(sealed)
}
