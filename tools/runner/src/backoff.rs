//! How long an idle runner waits between claims: 2 s, doubling up to 30 s,
//! back to 2 s after work. Lambda bills a waiting request, so the runner
//! polls briefly and often rather than holding a long poll; at 30 s an idle
//! runner costs cents a month (docs/deploy-runner.md, "Idle cost").

use std::time::Duration;

const FIRST: Duration = Duration::from_secs(2);
const LONGEST: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { next: FIRST }
    }
}

impl Backoff {
    /// The wait after a claim that found nothing.
    pub fn idle(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(LONGEST);
        wait
    }

    /// After work, the next idle wait is the shortest again.
    pub fn reset(&mut self) {
        self.next = FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_thirty_seconds_and_resets() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..7).map(|_| b.idle().as_secs()).collect();
        assert_eq!(waits, [2, 4, 8, 16, 30, 30, 30]);
        b.reset();
        assert_eq!(b.idle().as_secs(), 2);
    }
}
