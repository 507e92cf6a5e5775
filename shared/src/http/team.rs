//! The deploy team of a request: read from its token, so the deploy area
//! takes a typed [`Team`] and never sees the request.

use super::request::Ctx;
use crate::{
    Error, Result,
    auth::{Principal, Runner, Via},
    deploy::Team,
};

/// The team of the request's token (routes have already checked the
/// ability; the deploy dialect admits only tokens).
pub fn deploy_team(cx: &Ctx) -> Result<Team> {
    let principal: &Principal = cx.signed_in()?;
    match &principal.via {
        Via::Token { team, scopes, .. } => Ok(Team::new(
            team,
            scopes,
            &principal.user.name,
            cx.sealer.clone(),
        )),
        Via::Password => Err(Error::BadCredentials),
    }
}

/// The runner of a runner route, and its server's team.
pub fn runner_of(cx: &Ctx) -> Result<(&Runner, Team)> {
    let runner = cx.caller.runner().ok_or(Error::BadCredentials)?;
    Ok((runner, Team::of_runner(&runner.team, cx.sealer.clone())))
}
