//! Made-up randomness and text: a seeded generator, Zipf-drawn words.

use std::collections::HashSet;

use shared::words;

use crate::BODY_BYTES;

/// splitmix64: small, fast and the same everywhere.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub(crate) fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo).max(1) as u64) as i64
    }

    /// `n` distinct positions of `0..len`, in random order.
    pub(crate) fn pick(&mut self, len: usize, n: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..len).collect();
        let n = n.min(len);
        for i in 0..n {
            let j = i + self.below(len - i);
            all.swap(i, j);
        }
        all.truncate(n);
        all
    }
}

/// Words drawn with Zipf's law (exponent 1) over the vocabulary.
pub(crate) struct Zipf<'a> {
    pub(crate) words: &'a [String],
    pub(crate) cdf: Vec<f64>,
}

impl<'a> Zipf<'a> {
    pub(crate) fn new(words: &'a [String]) -> Self {
        let mut sum = 0.0;
        let mut cdf = Vec::with_capacity(words.len());
        for r in 0..words.len() {
            sum += 1.0 / (r + 1) as f64;
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Self { words, cdf }
    }

    pub(crate) fn word(&self, rng: &mut Rng) -> &'a str {
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let at = self.cdf.partition_point(|c| *c < u);
        &self.words[at.min(self.words.len() - 1)]
    }

    pub(crate) fn title(&self, rng: &mut Rng) -> String {
        let n = 3 + rng.below(4);
        (0..n).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }

    pub(crate) fn body(&self, rng: &mut Rng) -> String {
        let mut out = String::with_capacity(BODY_BYTES + 16);
        let mut n = 0;
        while out.len() < BODY_BYTES {
            out.push_str(self.word(rng));
            n += 1;
            out.push_str(if n % 12 == 0 { ". " } else { " " });
        }
        out
    }
}

/// Pronounceable words that the index keeps as they are (one token, no
/// stop word).
pub(crate) fn vocabulary(rng: &mut Rng, n: usize) -> Vec<String> {
    const C: [&str; 16] = [
        "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st",
    ];
    const V: [&str; 6] = ["a", "e", "i", "o", "u", "ou"];
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while out.len() < n {
        let syllables = 2 + rng.below(2);
        let w: String = (0..syllables)
            .map(|_| format!("{}{}", C[rng.below(C.len())], V[rng.below(V.len())]))
            .collect();
        if words::words(&w) == [w.clone()] && seen.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}
