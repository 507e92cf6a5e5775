//! The API's own masking of a run's log lines: whatever the runner sent,
//! no stored line holds a value of the application's environment
//! variables. Each value of three bytes or more (each such line of a
//! multiline value too) becomes `********`, longest first, so a value
//! that contains another is masked whole. Shorter values would mask
//! ordinary text ("1", "on") and are not secrets worth the name.
//!
//! Values are masked as they are when the line arrives: each call reads
//! the application's variable version (`envs::stamp`, one small item), and
//! a warm instance reuses the values it opened for that version only, so a
//! burst of log calls opens them once, and a variable created or changed a
//! moment ago (on any instance) is masked from its next line on.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::{
    db::Db,
    deploy::{envs, error::Result, team::Team},
};

pub const MASK: &str = "********";
const SHORTEST: usize = 3;
const KEPT: usize = 64;

/// The strings to mask for a set of values, longest first.
pub fn needles<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let whole = v.trim_end_matches(['\r', '\n']);
        for part in std::iter::once(whole).chain(whole.lines()) {
            let part = part.trim_end_matches('\r');
            if part.len() >= SHORTEST && !out.iter().any(|o| o == part) {
                out.push(part.to_string());
            }
        }
    }
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out
}

/// `line` with every needle replaced by [`MASK`].
pub fn mask(line: &str, needles: &[String]) -> String {
    let mut out = line.to_string();
    for n in needles {
        if out.contains(n.as_str()) {
            out = out.replace(n.as_str(), MASK);
        }
    }
    out
}

/// Per team, application and scope: the stamp the needles were read at.
type Kept = HashMap<String, (String, Arc<Vec<String>>)>;

fn kept() -> &'static Mutex<Kept> {
    static KEPT_VALUES: std::sync::OnceLock<Mutex<Kept>> = std::sync::OnceLock::new();
    KEPT_VALUES.get_or_init(Mutex::default)
}

/// The needles of a run of `app`: its variables of the run's scope, as
/// they are now.
pub async fn for_run(db: &Db, team: &Team, app: &str, preview: bool) -> Result<Arc<Vec<String>>> {
    let stamp = envs::stamp(db, team, app).await?;
    let id = format!("{}|{app}|{preview}", team.name);
    {
        let kept = kept().lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, n)) = kept.get(&id)
            && *at == stamp
        {
            return Ok(n.clone());
        }
    }
    let values = envs::for_run(db, team, app, preview).await?;
    let found = Arc::new(needles(values.iter().map(|v| v.value.as_str())));
    let mut kept = kept().lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= KEPT {
        kept.clear();
    }
    kept.insert(id, (stamp, found.clone()));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_masked_whole_and_short_ones_left() {
        let n = needles([
            "s3cret",
            "s3cret-longer",
            "on",
            "-----BEGIN\nkeyline\n-----END\n",
        ]);
        assert_eq!(n[0], "-----BEGIN\nkeyline\n-----END");
        assert!(n.iter().position(|x| x == "s3cret-longer") < n.iter().position(|x| x == "s3cret"));
        assert_eq!(
            mask("token=s3cret-longer and s3cret, on", &n),
            "token=******** and ********, on"
        );
        // A multiline value: its whole and each of its lines.
        assert_eq!(mask("got keyline here", &n), "got ******** here");
        assert_eq!(mask("nothing to hide", &n), "nothing to hide");
        assert!(needles(["", "ab"]).is_empty());
    }
}
