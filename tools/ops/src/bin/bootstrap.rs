//! Operator command: creates the table if it is missing (or turns on its
//! stream, if a table made before the stream lacks it), then the first site
//! admin and a token for them. Safe to run again: nothing that exists is
//! changed.
//!
//! Environment: the usual `TABLE_NAME` / `DYNAMODB_ENDPOINT`, plus
//! `BOOTSTRAP_ADMIN_USER` (default `root`), `BOOTSTRAP_ADMIN_EMAIL`,
//! `BOOTSTRAP_ADMIN_PASSWORD` (optional), `BOOTSTRAP_ADMIN_TOKEN` (the
//! token's value; generated and printed when unset) and
//! `BOOTSTRAP_TOKEN_FILE` (where to also write a generated token).

use shared::{
    Config,
    accounts::{
        names::{Email, OwnerName, Visibility},
        tokens::{self, NewToken},
        users::{self, NewUser},
    },
    auth::{scope::Scopes, token},
    db::{self, Db, table},
};

type BoxError = Box<dyn std::error::Error>;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let config = Config::from_env()?;
    let clients = db::connect(&config).await;
    let created = table::create_if_missing(&clients.retrying, &config.table_name).await?;
    println!(
        "table {}: {}",
        config.table_name,
        if created { "created" } else { "exists" }
    );
    if table::ensure_stream(&clients.retrying, &config.table_name).await? == table::Stream::Enabled
    {
        println!("table {}: stream turned on", config.table_name);
    }
    let db = Db::new(clients, config.table_name.clone());

    let name = env("BOOTSTRAP_ADMIN_USER").unwrap_or_else(|| "root".into());
    let admin = match users::get(&db, &name).await? {
        Some(u) => {
            println!("admin {}: exists (site admin: {})", u.name, u.is_admin);
            u
        }
        None => {
            let email =
                env("BOOTSTRAP_ADMIN_EMAIL").unwrap_or_else(|| format!("{name}@example.com"));
            let new = NewUser {
                name: OwnerName::parse("BOOTSTRAP_ADMIN_USER", &name)?,
                email: Email::parse("BOOTSTRAP_ADMIN_EMAIL", &email)?,
                full_name: String::new(),
                password: env("BOOTSTRAP_ADMIN_PASSWORD"),
                visibility: Visibility::Public,
                is_admin: true,
                restricted: false,
            };
            let u = users::create(&db, new).await?;
            println!("admin {}: created", u.name);
            u
        }
    };

    let given = env("BOOTSTRAP_ADMIN_TOKEN");
    let known = match &given {
        Some(secret) => tokens::lookup_hash(&db, &token::hash(secret))
            .await?
            .is_some(),
        None => false,
    };
    if known {
        println!("admin token: exists");
        return Ok(());
    }
    let secret = given.clone().unwrap_or_else(token::generate);
    let new = NewToken {
        name: format!("bootstrap-{}", token::last_eight(&secret)),
        scopes: Scopes::parse(&["all", "root"]).map_err(|e| e.to_string())?,
        team: admin.name.clone(),
    };
    tokens::create_with_secret(&db, &admin, new, &secret).await?;
    if given.is_some() {
        println!("admin token: created from BOOTSTRAP_ADMIN_TOKEN");
    } else {
        println!("admin token: {secret}");
        if let Some(path) = env("BOOTSTRAP_TOKEN_FILE") {
            std::fs::write(&path, format!("{secret}\n"))?;
            println!("admin token written to {path}");
        }
    }
    Ok(())
}
