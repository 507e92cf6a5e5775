//! People, owners and teams (`setup`).

use shared::{
    accounts::{
        names::{Email, OwnerName, Visibility},
        orgs::{self, NewOrg},
        teams::{self, AccessMode, NewTeam},
        tokens::{self, NewToken},
        users::{self, NewUser, UserRecord},
    },
    auth::scope::Scopes,
    db::Db,
    time,
};

use crate::{
    DAY, DEVS, Error, ORGS, PUBLIC_OWNERS, VOCABULARY,
    random::{Rng, vocabulary},
    state::State,
};

pub(crate) async fn user(db: &Db, name: &str) -> Result<UserRecord, Error> {
    Ok(users::create(
        db,
        NewUser {
            name: OwnerName::parse("name", name)?,
            email: Email::parse("email", &format!("{name}@example.com"))?,
            full_name: String::new(),
            password: None,
            visibility: Visibility::Public,
            is_admin: false,
            restricted: false,
        },
    )
    .await?)
}

pub(crate) async fn org(db: &Db, creator: &UserRecord, name: &str) -> Result<UserRecord, Error> {
    Ok(orgs::create(
        db,
        creator,
        NewOrg {
            name: OwnerName::parse("username", name)?,
            full_name: String::new(),
            email: None,
            description: String::new(),
            website: String::new(),
            location: String::new(),
            visibility: Visibility::Public,
            repo_admin_change_team_access: false,
        },
    )
    .await?)
}

pub(crate) async fn token(db: &Db, holder: &UserRecord, secret: &str) -> Result<(), Error> {
    let new = NewToken {
        name: "scale".into(),
        scopes: Scopes::parse(&["all"]).map_err(|e| e.to_string())?,
        team: holder.name.clone(),
    };
    tokens::create_with_secret(db, holder, new, secret).await?;
    Ok(())
}

pub(crate) async fn team(
    db: &Db,
    org: &UserRecord,
    name: &str,
    all: bool,
    member: &str,
) -> Result<teams::TeamRecord, Error> {
    let t = teams::create(
        db,
        org,
        NewTeam {
            name: name.into(),
            description: String::new(),
            permission: AccessMode::Read,
            units: teams::parse_units(AccessMode::Read, None, None)?,
            includes_all_repositories: all,
            can_create_org_repo: false,
        },
    )
    .await?;
    teams::add_member(db, &t, member).await?;
    Ok(t)
}

/// People, owners and teams.
pub(crate) async fn setup(db: &Db, user_token: &str, user500_token: &str) -> Result<State, Error> {
    let root = users::get(db, "root")
        .await?
        .ok_or("the bootstrap admin `root` is missing")?;
    for o in PUBLIC_OWNERS.iter().filter(|o| !ORGS.contains(o)) {
        user(db, o).await?;
    }
    for o in ORGS {
        org(db, &root, o).await?;
    }
    for i in 0..DEVS {
        user(db, &format!("dev{i:02}")).await?;
    }
    let alice = user(db, "alice").await?;
    let bob = user(db, "bob").await?;
    token(db, &alice, user_token).await?;
    token(db, &bob, user500_token).await?;
    let teamorg = users::get(db, "teamorg").await?.ok_or("teamorg")?;
    team(db, &teamorg, "devs", false, "alice").await?;
    let privorg = org(db, &root, "privorg").await?;
    team(db, &privorg, "all", true, "bob").await?;

    let now = time::now();
    let mut rng = Rng(0x5CA1_E5EE_D000_0001);
    let vocabulary = vocabulary(&mut rng, VOCABULARY + 1);
    let (rare, vocabulary) = vocabulary.split_last().ok_or("vocabulary")?;
    Ok(State {
        now,
        rng: rng.0,
        since: now - 2 * DAY,
        before: now - 60 * DAY,
        vocabulary: vocabulary.to_vec(),
        rare_word: rare.clone(),
        owners: PUBLIC_OWNERS.iter().map(|s| s.to_string()).collect(),
        filter_owner: "acme".into(),
        user: "alice".into(),
        user500: "bob".into(),
        team_org: "teamorg".into(),
        team: "devs".into(),
        private_org: "privorg".into(),
        private_team: "all".into(),
        ..State::default()
    })
}
