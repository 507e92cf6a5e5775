//! One shard of the stream as the event source mapping consumes it: its
//! records in order, in batches of at most [`BATCH_SIZE`] and
//! [`MAX_PAYLOAD_BYTES`], one batch in flight; a batch the function fails
//! is delivered again from the first failed record, with backoff, as often
//! as [`MAXIMUM_RETRY_ATTEMPTS`] allows (without end: then it would be
//! skipped, logged loudly, as Lambda sends it to the on-failure
//! destination). A function error halves the batch first
//! ([`BISECT_BATCH_ON_FUNCTION_ERROR`]). Records older than
//! [`MAXIMUM_RECORD_AGE`] (none: it is unbounded) would be skipped the same
//! way. No I/O here: the pump reads and invokes, this decides.
//!
//! Shards form a tree: a shard closes and children carry on its keys, so a
//! child is read only once its parent is done ([`ready`]).

use std::{
    collections::{HashSet, VecDeque},
    time::{Duration, Instant, SystemTime},
};

use crate::{
    event::{ENVELOPE_BYTES, Pending},
    mapping::{
        BATCH_SIZE, BISECT_BATCH_ON_FUNCTION_ERROR, MAX_PAYLOAD_BYTES, MAXIMUM_RECORD_AGE,
        MAXIMUM_RETRY_ATTEMPTS,
    },
};

/// How one invocation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every record of the batch is done.
    Done,
    /// The function reported the record at this index of the batch as its
    /// first failure: the ones before it are done.
    FailedFrom(usize),
    /// The function failed as a whole (an error, a crash, a time-out, an
    /// answer that names no record of the batch).
    FunctionError(String),
    /// No function was reached (the emulator is down or restarting): tried
    /// again later, and not counted against the batch.
    Unreachable(String),
}

/// What [`Shard::settle`] did with a batch's outcome.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settled {
    /// Records done (acknowledged).
    pub done: usize,
    /// Records skipped after the last retry.
    pub skipped: Vec<Pending>,
    /// Whether the rest is delivered again (a retry).
    pub retry: bool,
}

/// Records of a batch dropped for age before it is sent.
pub type Expired = Vec<Pending>;

#[derive(Clone, Debug)]
pub struct Shard {
    pub id: String,
    pub parent: Option<String>,
    /// Where the next read continues; `None`: get one.
    pub iterator: Option<String>,
    /// The last record done or skipped: where a new iterator starts (and
    /// what the checkpoint keeps).
    pub after: Option<String>,
    /// Closed and read to its end.
    pub exhausted: bool,
    /// Read, not yet done.
    pub buffer: VecDeque<Pending>,
    /// Failed deliveries of the batch at the front.
    attempts: u32,
    /// No delivery before this.
    retry_at: Option<Instant>,
    /// Records per batch while a function error is being bisected.
    limit: usize,
    /// The last record of the batch that is being bisected.
    bisect_until: Option<String>,
}

impl Shard {
    pub fn new(id: String, parent: Option<String>, after: Option<String>) -> Self {
        Self {
            id,
            parent,
            iterator: None,
            after,
            exhausted: false,
            buffer: VecDeque::new(),
            attempts: 0,
            retry_at: None,
            limit: BATCH_SIZE,
            bisect_until: None,
        }
    }

    /// Read to its end and every record done.
    pub fn finished(&self) -> bool {
        self.exhausted && self.buffer.is_empty()
    }

    /// Waiting before it delivers its front batch again.
    pub fn backing_off(&self, now: Instant) -> bool {
        self.retry_at.is_some_and(|at| now < at)
    }

    /// Failed deliveries of the batch at the front so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// When the next delivery may go.
    pub fn retry_at(&self) -> Option<Instant> {
        self.retry_at
    }

    /// Drops the records at the front that are too old to deliver
    /// (returned, to be logged), then says how many records the next batch
    /// holds (0: nothing to send).
    pub fn next_batch(&mut self, now: SystemTime) -> (Expired, usize) {
        let mut expired = Vec::new();
        while self
            .buffer
            .front()
            .is_some_and(|r| MAXIMUM_RECORD_AGE.is_some_and(|max| r.age(now) > max))
        {
            if let Some(r) = self.buffer.pop_front() {
                self.after = Some(r.seq.clone());
                expired.push(r);
            }
        }
        if !expired.is_empty() {
            self.reset();
        }
        let mut bytes = ENVELOPE_BYTES;
        let mut n = 0;
        for r in self.buffer.iter().take(self.limit) {
            let more = r.json.len() + usize::from(n > 0);
            // A record alone over the limit still goes (the function's
            // answer decides); Lambda's records are at most 400 KB.
            if n > 0 && bytes + more >= MAX_PAYLOAD_BYTES {
                break;
            }
            bytes += more;
            n += 1;
        }
        (expired, n)
    }

    /// The front `n` records (the batch being sent).
    pub fn batch(&self, n: usize) -> impl Iterator<Item = &Pending> {
        self.buffer.iter().take(n)
    }

    /// Applies the outcome of delivering the front `n` records.
    pub fn settle(&mut self, n: usize, outcome: &Outcome, now: Instant) -> Settled {
        let n = n.min(self.buffer.len());
        let mut out = Settled::default();
        let failed_from = match outcome {
            Outcome::Done => {
                out.done = self.ack(n);
                if self
                    .bisect_until
                    .as_ref()
                    .is_none_or(|last| self.after.as_ref().is_some_and(|a| !seq_less(a, last)))
                {
                    self.reset();
                } else {
                    // The rest of a bisected batch keeps the smaller size,
                    // and a fresh count of attempts.
                    self.attempts = 0;
                    self.retry_at = None;
                }
                return out;
            }
            Outcome::Unreachable(_) => {
                // Not the batch's fault: wait, without counting it.
                self.retry_at = Some(now + backoff(self.attempts.max(1)));
                out.retry = true;
                return out;
            }
            Outcome::FailedFrom(i) => (*i).min(n),
            Outcome::FunctionError(_) => 0,
        };
        out.done = self.ack(failed_from);
        let left = n - failed_from;
        if left == 0 {
            return out;
        }
        self.attempts += 1;
        if MAXIMUM_RETRY_ATTEMPTS.is_some_and(|max| self.attempts > max) {
            out.skipped = self.buffer.drain(..left).collect();
            if let Some(last) = out.skipped.last() {
                self.after = Some(last.seq.clone());
            }
            self.reset();
            return out;
        }
        if matches!(outcome, Outcome::FunctionError(_))
            && BISECT_BATCH_ON_FUNCTION_ERROR
            && left > 1
        {
            if self.bisect_until.is_none() {
                self.bisect_until = self.buffer.get(left - 1).map(|r| r.seq.clone());
            }
            self.limit = left.div_ceil(2);
        }
        self.retry_at = Some(now + backoff(self.attempts));
        out.retry = true;
        out
    }

    fn ack(&mut self, n: usize) -> usize {
        for r in self.buffer.drain(..n) {
            self.after = Some(r.seq);
        }
        n
    }

    fn reset(&mut self) {
        self.attempts = 0;
        self.retry_at = None;
        self.limit = BATCH_SIZE;
        self.bisect_until = None;
    }
}

/// Whether sequence number `a` comes before `b` (decimal strings, maybe of
/// different lengths, maybe zero-padded).
pub fn seq_less(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    (a.len(), a) < (b.len(), b)
}

/// The wait before the `attempt`th redelivery: 100 ms doubling, at most
/// 5 s (ten retries take about 25 s).
pub fn backoff(attempt: u32) -> Duration {
    let ms = 100u64.saturating_mul(1 << attempt.saturating_sub(1).min(16));
    Duration::from_millis(ms.min(5_000))
}

/// The shards that may be read now, in `shards` order: not finished, and
/// their parent finished or gone from the stream (trimmed).
pub fn ready<'a>(shards: &'a [Shard], finished: &HashSet<&str>) -> Vec<&'a str> {
    let listed: HashSet<&str> = shards.iter().map(|s| s.id.as_str()).collect();
    shards
        .iter()
        .filter(|s| !finished.contains(s.id.as_str()))
        .filter(|s| {
            s.parent
                .as_deref()
                .is_none_or(|p| !listed.contains(p) || finished.contains(p))
        })
        .map(|s| s.id.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(i: usize, bytes: usize) -> Pending {
        Pending {
            seq: format!("{i:021}"),
            created: None,
            json: "x".repeat(bytes),
        }
    }

    fn shard(n: usize, bytes: usize) -> Shard {
        let mut s = Shard::new("s".into(), None, None);
        s.buffer.extend((1..=n).map(|i| record(i, bytes)));
        s
    }

    fn seqs(s: &Shard) -> Vec<usize> {
        s.buffer.iter().map(|r| r.seq.parse().unwrap()).collect()
    }

    const NOW: SystemTime = SystemTime::UNIX_EPOCH;

    #[test]
    fn batches_hold_at_most_1000_records_and_stay_under_6_mb() {
        let mut s = shard(2500, 100);
        assert_eq!(s.next_batch(NOW).1, BATCH_SIZE);
        assert_eq!(BATCH_SIZE, 1000);
        // 13 records of 500 KB: 11 fit under 6 MB.
        let mut s2 = shard(13, 500_000);
        let (_, n) = s2.next_batch(NOW);
        assert_eq!(n, 11);
        let payload = crate::event::payload(s2.batch(n));
        assert!(payload.len() < MAX_PAYLOAD_BYTES, "{}", payload.len());
        let with_one_more = crate::event::payload(s2.batch(n + 1)).len();
        assert!(with_one_more >= MAX_PAYLOAD_BYTES);
        // Done batches leave; the next one follows in order.
        let got = s.settle(100, &Outcome::Done, Instant::now());
        assert_eq!((got.done, got.retry), (100, false));
        assert_eq!(s.after.as_deref(), Some("000000000000000000100"));
        assert_eq!(seqs(&s)[0], 101);
        assert_eq!(shard(0, 1).next_batch(NOW).1, 0);
    }

    #[test]
    fn a_reported_failure_keeps_what_came_before_and_retries_from_it() {
        let mut s = shard(10, 10);
        let now = Instant::now();
        let got = s.settle(10, &Outcome::FailedFrom(4), now);
        assert_eq!((got.done, got.retry, got.skipped.len()), (4, true, 0));
        assert_eq!(seqs(&s), (5..=10).collect::<Vec<_>>());
        assert_eq!(s.after.as_deref(), Some("000000000000000000004"));
        assert!(s.backing_off(now) && !s.backing_off(now + Duration::from_secs(1)));
        // The redelivery starts at the failed record.
        assert_eq!(s.next_batch(NOW).1, 6);
        let got = s.settle(6, &Outcome::Done, now);
        assert_eq!(got.done, 6);
        assert!(s.buffer.is_empty() && !s.backing_off(now));
    }

    #[test]
    fn a_failing_batch_is_delivered_again_without_end() {
        let now = Instant::now();
        let mut s = shard(5, 10);
        let got = s.settle(5, &Outcome::FailedFrom(2), now);
        assert_eq!((got.done, got.retry), (2, true), "the first two are done");
        // Each redelivery starts at the failed record, which fails again,
        // far past any bound Lambda could have had.
        for _ in 0..1_000 {
            assert_eq!(s.next_batch(NOW).1, 3);
            let got = s.settle(3, &Outcome::FailedFrom(0), now);
            assert!(got.retry && got.skipped.is_empty());
        }
        // Until it succeeds.
        assert_eq!(s.settle(3, &Outcome::Done, now).done, 3);
        assert!(s.buffer.is_empty());
        assert_eq!(s.after.as_deref(), Some("000000000000000000005"));
    }

    #[test]
    fn a_function_error_bisects_until_the_bad_record_is_alone() {
        // Record 7 of 10 makes the function fail, 20 times, then is mended.
        let mut s = shard(10, 10);
        let now = Instant::now();
        let mut sent = Vec::new();
        let mut failures = 0;
        for _ in 0..100 {
            let (_, n) = s.next_batch(NOW);
            if n == 0 {
                break;
            }
            let batch: Vec<usize> = s.batch(n).map(|r| r.seq.parse().unwrap()).collect();
            sent.push(batch.clone());
            let outcome = if batch.contains(&7) && failures < 20 {
                failures += 1;
                Outcome::FunctionError("boom".into())
            } else {
                Outcome::Done
            };
            let got = s.settle(n, &outcome, now);
            assert!(got.skipped.is_empty(), "nothing is ever skipped");
        }
        assert_eq!(
            &sent[..6],
            [
                (1..=10).collect::<Vec<_>>(),
                (1..=5).collect(),
                (6..=10).collect(),
                (6..=8).collect(),
                (6..=7).collect(),
                vec![6],
            ]
        );
        assert_eq!(
            sent.iter().filter(|b| b == &&[7]).count(),
            17,
            "alone, until it succeeds"
        );
        assert!(sent.last().unwrap().contains(&10));
        assert!(s.buffer.is_empty());
    }

    #[test]
    fn an_unreachable_function_waits_without_counting() {
        let mut s = shard(3, 10);
        let now = Instant::now();
        for _ in 0..20 {
            let got = s.settle(3, &Outcome::Unreachable("refused".into()), now);
            assert!(got.retry && got.skipped.is_empty() && got.done == 0);
        }
        assert_eq!(s.buffer.len(), 3);
        assert!(s.backing_off(now));
    }

    #[test]
    fn old_records_are_delivered_all_the_same() {
        let mut s = shard(3, 10);
        s.buffer[0].created = Some(0);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(86_000);
        let (expired, n) = s.next_batch(now);
        assert_eq!((expired.len(), n), (0, 3));
    }

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        assert!(seq_less("9", "10"));
        assert!(seq_less("000000000000000000009", "10"));
        assert!(!seq_less("10", "10"));
        assert!(!seq_less("111300000000012585567470", "99"));
    }

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        let ms: Vec<u128> = (1..=8).map(|a| backoff(a).as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(backoff(1000), Duration::from_secs(5));
    }

    #[test]
    fn children_wait_for_their_parent() {
        let shards = vec![
            Shard::new("a".into(), None, None),
            Shard::new("b".into(), Some("a".into()), None),
            Shard::new("c".into(), Some("gone".into()), None),
            Shard::new("d".into(), Some("b".into()), None),
        ];
        assert_eq!(ready(&shards, &HashSet::new()), ["a", "c"]);
        assert_eq!(ready(&shards, &HashSet::from(["a"])), ["b", "c"]);
        assert_eq!(ready(&shards, &HashSet::from(["a", "b", "c"])), ["d"]);
        assert!(ready(&shards, &HashSet::from(["a", "b", "c", "d"])).is_empty());
    }
}
