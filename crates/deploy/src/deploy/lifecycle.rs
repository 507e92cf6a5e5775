//! The states of a deployment and the moves between them, as pure rules;
//! `deployments` and `runs` make each move a write conditional on the
//! state read, so two requests cannot both make one.
//!
//! ```text
//! queued --claim--> in_progress --end(ok)--> finished
//!   |                  |   '--end(error) or silent runner--> failed
//!   '--cancel--> cancelled-by-user <--cancel (the runner stops it)
//! ```

use std::fmt;

use crate::deploy::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Queued,
    InProgress,
    Finished,
    Failed,
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Queued,
        Status::InProgress,
        Status::Finished,
        Status::Failed,
        Status::Cancelled,
    ];

    /// Coolify's name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::InProgress => "in_progress",
            Status::Finished => "finished",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled-by-user",
        }
    }

    /// A stored status; an unknown one is a bug of whoever wrote it.
    pub fn parse(raw: &str) -> Result<Status> {
        Status::ALL
            .into_iter()
            .find(|s| s.as_str() == raw)
            .ok_or(Error::Internal("a deployment has an unknown status"))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What someone asks of a deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// A runner takes it up.
    Claim,
    /// Its runner reports success.
    Finish,
    /// Its runner reports an error, or went silent.
    Fail,
    /// A user cancels it.
    Cancel,
}

impl Move {
    /// The status the move leads to.
    pub fn target(self) -> Status {
        match self {
            Move::Claim => Status::InProgress,
            Move::Finish => Status::Finished,
            Move::Fail => Status::Failed,
            Move::Cancel => Status::Cancelled,
        }
    }

    fn allowed_from(self) -> &'static [Status] {
        match self {
            Move::Claim => &[Status::Queued],
            Move::Finish | Move::Fail => &[Status::InProgress],
            Move::Cancel => &[Status::Queued, Status::InProgress],
        }
    }
}

/// The status `from` moves to by `m`, or the 409 that names both.
pub fn apply(from: Status, m: Move) -> Result<Status> {
    if m.allowed_from().contains(&from) {
        Ok(m.target())
    } else {
        Err(Error::IllegalMove {
            from: from.as_str(),
            to: m.target().as_str(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_drawn_moves_are_legal() {
        use Status::*;
        let legal = [
            (Queued, Move::Claim, InProgress),
            (InProgress, Move::Finish, Finished),
            (InProgress, Move::Fail, Failed),
            (Queued, Move::Cancel, Cancelled),
            (InProgress, Move::Cancel, Cancelled),
        ];
        for from in Status::ALL {
            for m in [Move::Claim, Move::Finish, Move::Fail, Move::Cancel] {
                let want = legal
                    .iter()
                    .find(|(f, mm, _)| *f == from && *mm == m)
                    .map(|(_, _, to)| *to);
                match (apply(from, m), want) {
                    (Ok(to), Some(w)) => assert_eq!(to, w, "{from} {m:?}"),
                    (Err(Error::IllegalMove { from: f, to }), None) => {
                        assert_eq!((f, to), (from.as_str(), m.target().as_str()))
                    }
                    (got, want) => panic!("{from} {m:?}: {got:?}, want {want:?}"),
                }
            }
        }
    }

    #[test]
    fn statuses_read_back() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()).unwrap(), s);
        }
        assert!(Status::parse("running").is_err());
    }
}
