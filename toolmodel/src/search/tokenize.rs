//! Text to search terms: words split at `_`, `-`, `.`, `/`, spaces and case changes,
//! lower-cased, English stop words dropped, English words stemmed (Snowball), and CJK text cut
//! into single characters and overlapping pairs.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Stems remembered by a [`Tokenizer`], at most: past it the memory is cleared.
const MAX_REMEMBERED_STEMS: usize = 100_000;

/// Cuts texts into terms, reusing its buffers; a [remembering](Tokenizer::remembering) one
/// also keeps the stem of each word it has seen (indexing a catalog stems the same few
/// thousand words again and again; a query's words are stemmed once, so remembering them
/// would only cost an allocation each).
#[derive(Default)]
pub(crate) struct Tokenizer {
    remember: bool,
    stems: HashMap<String, Box<str>, foldhash::fast::RandomState>,
    word: Vec<char>,
    lower: String,
    cjk: Vec<char>,
    pair: String,
}

/// Calls `emit` with each search term of `text`, in order (a term may repeat).
pub(crate) fn terms(text: &str, emit: &mut dyn FnMut(&str)) {
    Tokenizer::default().terms(text, emit);
}

impl Tokenizer {
    /// A tokenizer that remembers stems, for indexing.
    pub(crate) fn remembering() -> Self {
        Tokenizer {
            remember: true,
            ..Tokenizer::default()
        }
    }

    /// Calls `emit` with each search term of `text`, in order (a term may repeat).
    pub(crate) fn terms(&mut self, text: &str, emit: &mut dyn FnMut(&str)) {
        for c in text.chars() {
            if is_cjk(c) {
                self.flush_word(emit);
                self.cjk.push(c);
            } else if c.is_alphanumeric() {
                self.flush_cjk(emit);
                self.word.push(c);
            } else {
                self.flush_word(emit);
                self.flush_cjk(emit);
            }
        }
        self.flush_word(emit);
        self.flush_cjk(emit);
    }

    /// A run of letters and digits: split at case changes (`getHTTPResponse` is `get`, `http`,
    /// `response`), each part lower-cased, filtered and stemmed.
    fn flush_word(&mut self, emit: &mut dyn FnMut(&str)) {
        if self.word.is_empty() {
            return;
        }
        let word = std::mem::take(&mut self.word);
        let mut start = 0;
        for i in 1..word.len() {
            let (Some(&before), Some(&at)) = (word.get(i - 1), word.get(i)) else {
                continue;
            };
            let after = word.get(i + 1);
            // `aB`: a new word at B; `ABc`: a new word at B (the end of an acronym).
            let boundary = (before.is_lowercase() || before.is_numeric()) && at.is_uppercase()
                || before.is_uppercase()
                    && at.is_uppercase()
                    && after.is_some_and(|next| next.is_lowercase());
            if boundary {
                self.emit_part(word.get(start..i).unwrap_or_default(), emit);
                start = i;
            }
        }
        self.emit_part(word.get(start..).unwrap_or_default(), emit);
        self.word = word;
        self.word.clear();
    }

    fn emit_part(&mut self, part: &[char], emit: &mut dyn FnMut(&str)) {
        // Numbers alone (`10`, `2024`) say nothing of which tool is meant.
        if part.is_empty() || part.iter().all(|c| c.is_numeric()) {
            return;
        }
        self.lower.clear();
        self.lower
            .extend(part.iter().flat_map(|c| c.to_lowercase()));
        if is_stop_word(&self.lower) {
            return;
        }
        if let Some(stem) = self.stems.get(self.lower.as_str()) {
            emit(stem);
            return;
        }
        let stem = stemmer().stem(&self.lower);
        emit(&stem);
        if !self.remember {
            return;
        }
        let stem: Box<str> = stem.into();
        if self.stems.len() >= MAX_REMEMBERED_STEMS {
            self.stems.clear();
        }
        self.stems.insert(self.lower.clone(), stem);
    }

    /// CJK text has no spaces: each character is a term, and so is each pair of neighbours
    /// (as Lucene's CJK analyzer does), so that a two-character word in a query matches it
    /// exactly.
    fn flush_cjk(&mut self, emit: &mut dyn FnMut(&str)) {
        for (i, c) in self.cjk.iter().enumerate() {
            self.pair.clear();
            self.pair.push(*c);
            emit(&self.pair);
            if let Some(next) = self.cjk.get(i + 1) {
                self.pair.push(*next);
                emit(&self.pair);
            }
        }
        self.cjk.clear();
    }
}

/// Han, Hiragana, Katakana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FA1F) // CJK Extensions B to F, compatibility supplement
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// English function words, and the verbs of asking ("tell me", "I want", "help me"): in a
/// request to a model ("can you tell me the weather in Paris?") they match many descriptions
/// and name no tool.
fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str, foldhash::fast::FixedState>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

/// Sorted.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "give",
    "had",
    "has",
    "have",
    "having",
    "he",
    "help",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "know",
    "let",
    "like",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "need",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "please",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "want",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, &mut |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn identifiers_split_at_separators_and_case_changes() {
        assert_eq!(all("get_weather"), ["get", "weather"]);
        assert_eq!(all("getHTTPResponse"), ["get", "http", "respons"]);
        assert_eq!(
            all("notes.search-notes/v2"),
            ["note", "search", "note", "v2"]
        );
        assert_eq!(all("utf8Decode"), ["utf8", "decod"]);
    }

    #[test]
    fn questions_lose_stop_words_and_numbers_and_are_stemmed() {
        assert_eq!(
            all("What is the area of a triangle with base 10 and height 5?"),
            ["area", "triangl", "base", "height"]
        );
        assert_eq!(
            all("Calculating calculates calculated"),
            ["calcul", "calcul", "calcul"]
        );
    }

    #[test]
    fn cjk_text_becomes_characters_and_pairs() {
        assert_eq!(
            all("天気予報"),
            ["天", "天気", "気", "気予", "予", "予報", "報"]
        );
        assert_eq!(all("get天気"), ["get", "天", "天気", "気"]);
        assert_eq!(all("날씨"), ["날", "날씨", "씨"]);
    }

    #[test]
    fn other_scripts_are_lower_cased_words() {
        assert_eq!(all("Погода в Москве"), ["погода", "в", "москве"]);
    }
}
