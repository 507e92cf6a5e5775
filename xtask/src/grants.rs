//! `cargo xtask grants <actions log>`: whether a test run used exactly what
//! the functions are granted. The log holds one line per process and
//! permission, `<used|denied> <function> <Action> <table|indexes>`
//! (crates/store/src/db/access.rs writes it). A refused call is a bug of the
//! grant; a granted permission no test used is one the policy should not
//! hold, unless the grant marks its action rare and says why.

use std::{collections::BTreeSet, fs};

use shared::{
    db::{Action, Grant, Permission, Resource},
    http::Route,
};

/// `Ok(false)` when the run was refused a call or left a grant unused.
pub fn check(functions: &[(&str, &[Route], &Grant)], log: &str) -> Result<bool, String> {
    let text = fs::read_to_string(log).map_err(|e| format!("{log}: {e}"))?;
    let mut used = BTreeSet::new();
    let mut fine = true;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (allowed, function, p) =
            parse(line).ok_or_else(|| format!("{log}: unreadable line {line:?}"))?;
        if allowed {
            used.insert((function, p));
        } else {
            eprintln!("{function} called {p}, outside its grant (functions/{function}/src/lib.rs)");
            fine = false;
        }
    }
    for (function, _, grant) in functions {
        for p in grant.permissions() {
            if used.contains(&(function.to_string(), p)) {
                continue;
            }
            match grant.rare.iter().find(|(a, _)| *a == p.action) {
                Some((_, why)) => println!("{function}: {p} not used in this run (rare: {why})"),
                None => {
                    eprintln!(
                        "{function} is granted {p}, which no test used: remove it from its \
                         grant (functions/{function}/src/lib.rs), or list it under `rare` \
                         with the reason"
                    );
                    fine = false;
                }
            }
        }
    }
    if fine {
        println!("every DynamoDB grant was used, and nothing else");
    }
    Ok(fine)
}

fn parse(line: &str) -> Option<(bool, String, Permission)> {
    let [verdict, function, action, on] = line.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let allowed = match verdict {
        "used" => true,
        "denied" => false,
        _ => return None,
    };
    let p = Permission {
        action: Action::parse(action)?,
        on: Resource::parse(on)?,
    };
    Some((allowed, function.to_string(), p))
}
