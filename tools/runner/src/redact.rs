//! Masks environment values in log lines before they leave the server.
//!
//! Every value of three characters or more is a needle, and so is each
//! such line of a multiline value (output arrives line by line, so a whole
//! multiline value never appears in one line). Occurrences are marked
//! first and replaced after, so values that overlap in a line are masked as
//! one span and no tail of either is left showing. Shorter values are too
//! common (`1`, `on`) to mask without making logs unreadable.

pub const MASK: &str = "********";

/// The shortest value that is masked, in characters.
const MIN_CHARS: usize = 3;

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    needles: Vec<String>,
}

impl Redactor {
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut needles = Vec::new();
        for value in values {
            let parts =
                std::iter::once(value).chain(value.lines().map(|l| l.trim_end_matches('\r')));
            for part in parts {
                if part.chars().count() >= MIN_CHARS && !needles.iter().any(|n| n == part) {
                    needles.push(part.to_owned());
                }
            }
        }
        Self { needles }
    }

    /// `line` with every occurrence of every needle replaced by [`MASK`].
    pub fn redact(&self, line: &str) -> String {
        let mut masked = vec![false; line.len()];
        let mut any = false;
        for needle in &self.needles {
            let mut from = 0;
            while let Some(at) = line[from..].find(needle.as_str()) {
                let start = from + at;
                masked[start..start + needle.len()].fill(true);
                any = true;
                // Overlapping occurrences too: step one character on.
                from = start + line[start..].chars().next().map_or(1, char::len_utf8);
            }
        }
        if !any {
            return line.to_owned();
        }
        let mut out = String::with_capacity(line.len());
        let mut in_mask = false;
        for (i, c) in line.char_indices() {
            if masked[i] {
                if !in_mask {
                    out.push_str(MASK);
                }
                in_mask = true;
            } else {
                out.push(c);
                in_mask = false;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_occurrence() {
        let r = Redactor::new(["s3cret-value"]);
        assert_eq!(
            r.redact("a s3cret-value and s3cret-value."),
            "a ******** and ********."
        );
    }

    #[test]
    fn short_values_are_left_alone() {
        let r = Redactor::new(["ab", "1", ""]);
        assert_eq!(r.redact("ab 1 abc"), "ab 1 abc");
    }

    #[test]
    fn three_characters_are_masked() {
        let r = Redactor::new(["xyz"]);
        assert_eq!(r.redact("wxyzw"), "w********w");
    }

    #[test]
    fn each_line_of_a_multiline_value_is_masked() {
        let r = Redactor::new(["-----BEGIN KEY-----\r\nMIIEabc\nok\n-----END KEY-----"]);
        assert_eq!(r.redact("-----BEGIN KEY-----"), "********");
        assert_eq!(r.redact("line MIIEabc end"), "line ******** end");
        assert_eq!(r.redact("ok"), "ok", "a two-character line is too short");
        assert_eq!(r.redact("x -----END KEY-----"), "x ********");
    }

    #[test]
    fn overlapping_values_leave_no_tail() {
        let r = Redactor::new(["abcdef", "defghi"]);
        assert_eq!(r.redact("xxabcdefghiyy"), "xx********yy");
        // A value inside another, and repeats that overlap themselves.
        let r = Redactor::new(["password", "word"]);
        assert_eq!(r.redact("my password, a word"), "my ********, a ********");
        let r = Redactor::new(["aaa"]);
        assert_eq!(r.redact("baaaab"), "b********b");
    }

    #[test]
    fn works_on_multibyte_text() {
        let r = Redactor::new(["héllo"]);
        assert_eq!(r.redact("ça héllo ça"), "ça ******** ça");
    }
}
