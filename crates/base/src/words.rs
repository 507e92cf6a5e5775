//! Words: what the issue-search index stores for a text, and what a search's
//! `q` must match. One function turns both sides into words, so a query word
//! matches an indexed word exactly when the two texts spelled the same word.
//!
//! A text is normalised as a whole (compatibility forms, accents and case
//! folded; see [`normalise`]), then cut at Unicode word boundaries (UAX #29).
//! Chinese and Japanese are written without spaces, and the segmenter
//! yields one ideograph or kana at a time, so each run of them becomes its
//! overlapping pairs ("東京都庁" -> 東京, 京都, 都庁), which a query spells the
//! same way; Korean is written with spaces and keeps its words. Common
//! English words that would match nearly everything are left out. No
//! stemming: "parse" does not match "parsing", as in Gitea's default index.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// Longest word stored or matched, in characters (after normalisation);
/// longer tokens (hashes, base64, minified code) are skipped, not cut.
pub const MAX_WORD_CHARS: usize = 64;
/// Longest `q`, in characters after trimming.
pub const MAX_QUERY_CHARS: usize = 256;
/// Most distinct words a `q` may ask for.
pub const MAX_QUERY_WORDS: usize = 8;
/// Left out of texts and queries: Lucene's classic English stop set, sorted.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Why a `q` was refused; the message names the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("q: at most {max} characters")]
    TooLong { max: usize },
    #[error("q: at most {max} words")]
    TooManyWords { max: usize },
    /// No text is indexed by a word this long, so leaving it out would
    /// match everything, and keeping it nothing: refused, naming the bound.
    #[error("q: words of at most {max} characters (longer ones are not indexed)")]
    WordTooLong { max: usize },
}

/// One normalised word (or a whole text, normalised): compatibility forms
/// folded (NFKC: "ＡＢＣ" -> "ABC", "ﬁ" -> "fi"), accents dropped ("Café" ->
/// "cafe"), lower-cased ("ß" stays), recomposed (NFC). Also folds the
/// typographic apostrophe to `'` and drops invisible format characters
/// (soft hyphen, zero-width joiners, variation selectors).
pub fn normalise(word: &str) -> String {
    // NFKD is NFKC followed by canonical decomposition: one pass.
    let folded: String = word
        .nfkd()
        .filter(|&c| !is_accent(c) && !is_invisible(c))
        .map(|c| if c == '\u{2019}' { '\'' } else { c })
        .collect();
    folded.to_lowercase().nfc().collect()
}

/// The words of `text` in order of appearance (repeats kept), normalised,
/// stop words and over-long tokens left out, as an index stores them: a
/// run of ideographs and kana gives its pairs and its single characters,
/// so that a query of one character finds it inside a longer run.
pub fn words(text: &str) -> Vec<String> {
    tokens(text, true)
}

/// The words of `text`; runs of ideographs and kana as pairs, and also as
/// single characters when `singles`.
fn tokens(text: &str, singles: bool) -> Vec<String> {
    let text = normalise(text);
    let mut out = Vec::new();
    // Ideographs and kana of adjacent segments, paired when the run ends.
    let mut run = Vec::new();
    let mut run_end = 0;
    for (at, token) in text.unicode_word_indices() {
        if token.chars().all(is_cjk) {
            if at != run_end {
                pairs(&mut run, &mut out, singles);
            }
            run.extend(token.chars());
            run_end = at + token.len();
            continue;
        }
        pairs(&mut run, &mut out, singles);
        if token.chars().any(char::is_alphanumeric)
            && token.chars().count() <= MAX_WORD_CHARS
            && !STOP_WORDS.contains(&token)
        {
            out.push(token.to_string());
        }
    }
    pairs(&mut run, &mut out, singles);
    out
}

/// The distinct words of `text` in order of first appearance, at most `cap`
/// of them, leaving out those `skip` says are known already; and whether
/// the cap left any out.
pub fn distinct(text: &str, cap: usize, skip: &dyn Fn(&str) -> bool) -> (Vec<String>, bool) {
    first_distinct(words(text), cap, skip)
}

fn first_distinct(
    words: Vec<String>,
    cap: usize,
    skip: &dyn Fn(&str) -> bool,
) -> (Vec<String>, bool) {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for word in words {
        if seen.contains(&word) || skip(&word) {
            continue;
        }
        if out.len() == cap {
            return (out, true);
        }
        seen.insert(word.clone());
        out.push(word);
    }
    (out, false)
}

/// A search's `q`: `None` for no text filter (absent, blank, holding a NUL,
/// or no word but stop words and punctuation), else the distinct words that
/// must all occur, in order of first appearance.
pub fn query(raw: Option<&str>) -> Result<Option<Vec<String>>, QueryError> {
    let Some(q) = raw
        .map(str::trim)
        .filter(|q| !q.is_empty() && !q.contains('\0'))
    else {
        return Ok(None);
    };
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::TooLong {
            max: MAX_QUERY_CHARS,
        });
    }
    let normalised = normalise(q);
    if normalised
        .unicode_words()
        .any(|w| !w.chars().all(is_cjk) && w.chars().count() > MAX_WORD_CHARS)
    {
        return Err(QueryError::WordTooLong {
            max: MAX_WORD_CHARS,
        });
    }
    // A run of ideographs is asked for by its pairs (a lone character by
    // itself), which every indexed run holds.
    let (words, cut) = first_distinct(tokens(q, false), MAX_QUERY_WORDS, &|_| false);
    if cut {
        return Err(QueryError::TooManyWords {
            max: MAX_QUERY_WORDS,
        });
    }
    Ok(Some(words).filter(|w| !w.is_empty()))
}

/// Appends a finished run of ideographs and kana as overlapping pairs (a
/// lone character as itself), with each character too when `singles`,
/// and empties it.
fn pairs(run: &mut Vec<char>, out: &mut Vec<String>, singles: bool) {
    match run.len() {
        0 => {}
        1 => out.push(run[0].to_string()),
        _ => {
            out.extend(run.windows(2).map(|p| p.iter().collect()));
            if singles {
                out.extend(run.iter().map(char::to_string));
            }
        }
    }
    run.clear();
}

/// Accents folded away: the generic combining diacritics (Latin, Greek,
/// Cyrillic), Hebrew and Arabic vowel points. Marks that belong to a
/// script's letters stay (kana voicing, or "ガス" would match "カス"; Indic
/// vowel signs; Thai), as do the marks' neighbours in those blocks that are
/// punctuation.
fn is_accent(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{0591}'..='\u{05C7}'
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}')
        && is_combining_mark(c)
}

/// Invisible characters that would otherwise split or change a word:
/// soft hyphen, zero-width (non-)joiner, word joiner, byte-order mark,
/// variation selectors.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{200C}'
        | '\u{200D}'
        | '\u{2060}'
        | '\u{FEFF}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// A Han ideograph, hiragana or katakana letter (not Hangul, not
/// punctuation such as "・" or "、").
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'     // radicals
        | '\u{3005}'..='\u{3007}'   // 々 〆 〇
        | '\u{3021}'..='\u{3029}'   // Hangzhou numerals
        | '\u{3031}'..='\u{3035}'   // kana repeat marks
        | '\u{3038}'..='\u{303B}'
        | '\u{3041}'..='\u{30FF}'   // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}'   // katakana extension
        | '\u{3400}'..='\u{4DBF}'   // extension A
        | '\u{4E00}'..='\u{9FFF}'   // unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // compatibility ideographs
        | '\u{1AFF0}'..='\u{1B16F}' // kana supplements
        | '\u{20000}'..='\u{3FFFF}') // extensions B and later
        && c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: text, the words it must give.
    fn check(rows: &[(&str, &[&str])]) {
        for (text, want) in rows {
            assert_eq!(words(text), *want, "words of {text:?}");
        }
    }

    #[test]
    fn case_folds_and_punctuation_splits_as_uax29_does() {
        check(&[
            ("Hello WORLD", &["hello", "world"]),
            (
                "Crash: NullPointer!!! (again)",
                &["crash", "nullpointer", "again"],
            ),
            (
                "see https://example.com/api/v1/repos?page=2#top",
                &[
                    "see",
                    "https",
                    "example.com",
                    "api",
                    "v1",
                    "repos",
                    "page",
                    "2",
                    "top",
                ],
            ),
            (
                "src/issues/search.rs:42",
                &["src", "issues", "search.rs", "42"],
            ),
            ("alice@example.com", &["alice", "example.com"]),
            (
                "foo::bar() localhost:8080",
                &["foo", "bar", "localhost", "8080"],
            ),
            (
                "v1.2.3 foo_bar don't 3.14",
                &["v1.2.3", "foo_bar", "don't", "3.14"],
            ),
            ("don\u{2019}t", &["don't"]),
            ("issue #42, 42nd", &["issue", "42", "42nd"]),
        ]);
    }

    #[test]
    fn compatibility_forms_and_accents_fold() {
        check(&[
            ("Ünïcödé Café", &["unicode", "cafe"]),
            ("Cafe\u{301} naïve", &["cafe", "naive"]),
            ("ＡＢＣ１２３", &["abc123"]),
            ("ﬁle", &["file"]),
            ("Straße STRASSE", &["straße", "strasse"]),
            ("soft\u{AD}ware", &["software"]),
            ("İstanbul", &["istanbul"]),
            // Vowel points go; the vowel signs of Indic scripts are letters.
            ("كَتَبَ שָׁלוֹם", &["كتب", "שלום"]),
            ("हिन्दी", &["हिन्दी"]),
        ]);
        assert_eq!(normalise("Café"), "cafe");
        for w in ["Ünïcödé", "ＡＢＣ", "Ἀθῆναι", "ガス", "한국어", "ﬁ"] {
            let once = normalise(w);
            assert_eq!(normalise(&once), once, "normalise is idempotent on {w:?}");
        }
    }

    #[test]
    fn greek_and_cyrillic_lower_case() {
        check(&[
            ("ΟΔΟΣ Ἀθῆναι", &["οδος", "αθηναι"]),
            ("ПРИВЕТ Мир Ёлка", &["привет", "мир", "елка"]),
        ]);
    }

    #[test]
    fn indexed_runs_keep_single_characters_too() {
        assert_eq!(words("黑猫"), ["黑猫", "黑", "猫"]);
        // A query of one character finds it inside a run; a longer query
        // asks for its pairs.
        assert_eq!(query(Some("猫")).unwrap().unwrap(), ["猫"]);
        assert_eq!(query(Some("黑猫很")).unwrap().unwrap(), ["黑猫", "猫很"]);
    }

    #[test]
    fn ideographs_and_kana_pair_up_hangul_keeps_words() {
        let check = |rows: &[(&str, &[&str])]| {
            for (text, want) in rows {
                assert_eq!(tokens(text, false), *want, "{text:?}");
            }
        };
        check(&[
            ("東京都庁", &["東京", "京都", "都庁"]),
            ("ひらがな", &["ひら", "らが", "がな"]),
            ("カタカナ", &["カタ", "タカ", "カナ"]),
            ("東京タワーへ", &["東京", "京タ", "タワ", "ワー", "ーへ"]),
            ("猫", &["猫"]),
            ("猫 犬、鳥", &["猫", "犬", "鳥"]),
            ("Rust言語で", &["rust", "言語", "語で"]),
            ("ｶﾀｶﾅ", &["カタ", "タカ", "カナ"]),
            ("안녕하세요 세계", &["안녕하세요", "세계"]),
        ]);
        // Voicing marks are part of kana, not accents.
        assert_ne!(words("ガス"), words("カス"));
    }

    #[test]
    fn tokens_without_letters_or_digits_are_dropped() {
        check(&[("🎉 🚀 ok 👍🏽 -- ... ・", &["ok"]), ("1️⃣", &["1"])]);
    }

    #[test]
    fn stop_words_are_left_out() {
        check(&[
            ("The fix is in the parser", &["fix", "parser"]),
            ("THE Á", &[]),
        ]);
        assert!(STOP_WORDS.is_sorted(), "STOP_WORDS stays sorted");
        assert_eq!(STOP_WORDS.len(), 33);
    }

    #[test]
    fn over_long_tokens_are_skipped_whole() {
        let at_max = "ж".repeat(MAX_WORD_CHARS);
        let over = "x".repeat(MAX_WORD_CHARS + 1);
        assert_eq!(words(&at_max), [at_max.as_str()]);
        assert_eq!(words(&format!("{over} y")), ["y"]);
    }

    #[test]
    fn distinct_caps_and_skips() {
        let text = "red green red blue GREEN yellow";
        let none = |_: &str| false;
        type Skip<'a> = &'a dyn Fn(&str) -> bool;
        let rows: &[(usize, Skip, &[&str], bool)] = &[
            (2, &none, &["red", "green"], true),
            (3, &none, &["red", "green", "blue"], true),
            (4, &none, &["red", "green", "blue", "yellow"], false),
            (9, &none, &["red", "green", "blue", "yellow"], false),
            (3, &|w| w == "green", &["red", "blue", "yellow"], false),
            (0, &none, &[], true),
            (0, &|_| true, &[], false),
        ];
        for (cap, skip, want, cut) in rows {
            let got = distinct(text, *cap, skip);
            assert_eq!(
                got,
                (want.iter().map(|w| w.to_string()).collect(), *cut),
                "cap {cap}"
            );
        }
    }

    #[test]
    fn query_parses_to_distinct_words_or_nothing() {
        let some = |w: &[&str]| Ok(Some(w.iter().map(|w| w.to_string()).collect()));
        type Parsed = Result<Option<Vec<String>>, QueryError>;
        let rows: &[(Option<&str>, Parsed)] = &[
            (None, Ok(None)),
            (Some("   "), Ok(None)),
            (Some("crash\0"), Ok(None)),
            (Some("the of AND"), Ok(None)),
            (Some("!!! ..."), Ok(None)),
            (Some("  Foo foo FOO bar "), some(&["foo", "bar"])),
            (Some("the crash in Café"), some(&["crash", "cafe"])),
            (Some("東京都"), some(&["東京", "京都"])),
        ];
        for (raw, want) in rows {
            assert_eq!(&query(*raw), want, "q = {raw:?}");
        }
    }

    #[test]
    fn query_limits_name_themselves() {
        // 256 characters of two words (each within the indexed length).
        let longest = format!(
            " {} {} ",
            format!("{} ", "y".repeat(MAX_WORD_CHARS - 1))
                .repeat(3)
                .trim_end(),
            "y".repeat(MAX_WORD_CHARS)
        );
        assert_eq!(longest.trim().chars().count(), MAX_QUERY_CHARS);
        assert!(query(Some(&longest)).is_ok(), "trimmed before counting");
        let err = query(Some(&"é".repeat(MAX_QUERY_CHARS + 1))).unwrap_err();
        assert_eq!(err, QueryError::TooLong { max: 256 });
        assert_eq!(err.to_string(), "q: at most 256 characters");

        let word = |n: usize| format!("crash {}", "x".repeat(n));
        assert!(query(Some(&word(MAX_WORD_CHARS))).is_ok());
        assert_eq!(
            query(Some(&word(MAX_WORD_CHARS + 1))),
            Err(QueryError::WordTooLong { max: 64 }),
            "an over-long word would otherwise be dropped and match everything"
        );

        let eight = "a1 a2 a3 a4 a5 a6 a7 a8";
        assert_eq!(query(Some(eight)).map(|w| w.map(|w| w.len())), Ok(Some(8)));
        let repeated = format!("{eight} a1 A2 the");
        assert!(
            query(Some(&repeated)).is_ok(),
            "repeats and stop words are free"
        );
        let err = query(Some(&format!("{eight} a9"))).unwrap_err();
        assert_eq!(err, QueryError::TooManyWords { max: 8 });
        assert_eq!(err.to_string(), "q: at most 8 words");
    }
}
