//! Lines waiting to be sent to `/logs`: redacted and cut to size as they
//! arrive, taken off in batches the API accepts.

use std::collections::VecDeque;

use crate::{
    job::{LogLine, Stream},
    redact::Redactor,
};

/// Lines per `/logs` call, the API's limit.
pub const BATCH: usize = 100;
/// Bytes per line, the API's limit.
pub const MAX_LINE: usize = 4096;
/// Lines kept while the API cannot be reached; the API keeps at most 5,000
/// per deployment anyway.
const MAX_PENDING: usize = 5000;

pub struct Outbox {
    redactor: Redactor,
    pending: VecDeque<LogLine>,
    dropped: usize,
}

impl Outbox {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            pending: VecDeque::new(),
            dropped: 0,
        }
    }

    /// Queue a line, redacted first and cut after (so a cut never leaves
    /// part of a value showing).
    pub fn push(&mut self, kind: Stream, text: &str) {
        if self.pending.len() >= MAX_PENDING {
            self.dropped += 1;
            return;
        }
        let output = truncate(self.redactor.redact(text), MAX_LINE);
        self.pending.push_back(LogLine {
            output,
            kind,
            hidden: false,
        });
    }

    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact(text)
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// A full batch is waiting: send it now rather than at the next tick.
    pub fn full(&self) -> bool {
        self.pending.len() >= BATCH
    }

    /// The next batch, left queued until [`Outbox::sent`].
    pub fn batch(&self) -> Vec<LogLine> {
        self.pending.iter().take(BATCH).cloned().collect()
    }

    pub fn sent(&mut self, n: usize) {
        self.pending.drain(..n.min(self.pending.len()));
    }

    /// Lines not kept because too many were waiting.
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_redacted_then_cut_and_batched_by_100() {
        let mut out = Outbox::new(Redactor::new(["topsecret"]));
        out.push(Stream::Stdout, "the topsecret value");
        assert_eq!(out.batch()[0].output, "the ******** value");
        for i in 0..150 {
            out.push(Stream::Stderr, &format!("line {i}"));
        }
        assert!(out.full());
        let batch = out.batch();
        assert_eq!(batch.len(), 100);
        out.sent(batch.len());
        assert_eq!(out.batch().len(), 51);
        assert_eq!(out.batch()[0].output, "line 99");
        assert_eq!(out.batch()[0].kind, Stream::Stderr);
    }

    #[test]
    fn long_lines_are_cut_at_4_kib_on_a_char_boundary() {
        let mut out = Outbox::new(Redactor::default());
        out.push(Stream::Stdout, &"é".repeat(3000));
        let line = &out.batch()[0].output;
        assert!(
            line.len() <= MAX_LINE && line.len() >= MAX_LINE - 1,
            "{}",
            line.len()
        );
    }

    #[test]
    fn a_value_across_the_cut_is_masked_not_halved() {
        let secret = "s3cr3t-across-the-cut";
        let mut out = Outbox::new(Redactor::new([secret]));
        out.push(
            Stream::Stdout,
            &format!("{}{secret}", "x".repeat(MAX_LINE - 5)),
        );
        let line = &out.batch()[0].output;
        assert!(!line.contains("s3cr"), "{}", &line[MAX_LINE - 10..]);
        assert!(line.ends_with("*****"));
    }
}
