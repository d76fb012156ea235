//! A search query, checked and cut into terms once.

use std::collections::HashSet;
use std::fmt;

use super::tokenize;

/// Bytes a query may have: a question, a paragraph, a pasted page; past it the query is
/// refused ([`QueryError::TooLong`]) before any work.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// Distinct terms a query may have after [`Query::new`] cuts it: ranking costs at most this
/// many posting-list walks ([`QueryError::TooManyTerms`] past it).
pub const MAX_QUERY_TERMS: usize = 512;

/// Why a query cannot be searched ([`Error::SearchQuery`](crate::Error::SearchQuery)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The query is empty or only whitespace.
    #[error("the search query is empty")]
    Empty,
    /// The query has more than [`MAX_QUERY_BYTES`] bytes.
    #[error("the search query has {bytes} bytes, more than the {max} a query may have")]
    TooLong {
        /// The query's length in bytes.
        bytes: usize,
        /// [`MAX_QUERY_BYTES`].
        max: usize,
    },
    /// The query has more than [`MAX_QUERY_TERMS`] distinct terms.
    #[error("the search query has {terms} distinct terms, more than the {max} a query may have")]
    TooManyTerms {
        /// The number of distinct terms, counted up to one past the limit.
        terms: usize,
        /// [`MAX_QUERY_TERMS`].
        max: usize,
    },
}

/// A query as rankers take it: the text as given and its distinct terms, in order of first
/// appearance (the tokenizer of [`Bm25`](super::Bm25): words split at separators and case
/// changes, lower-cased, stop words dropped, stemmed; CJK as characters and pairs).
///
/// A query of words that are all stop words or numbers ("what is 2 + 2?") is valid and has no
/// terms: it finds nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct Query<'a> {
    text: &'a str,
    terms: Vec<String>,
}

impl<'a> Query<'a> {
    /// Checks `text` and cuts it into terms.
    ///
    /// # Errors
    ///
    /// [`QueryError::Empty`] for an empty or whitespace text, [`QueryError::TooLong`] past
    /// [`MAX_QUERY_BYTES`], [`QueryError::TooManyTerms`] past [`MAX_QUERY_TERMS`].
    pub fn new(text: &'a str) -> Result<Self, QueryError> {
        if text.trim().is_empty() {
            return Err(QueryError::Empty);
        }
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong {
                bytes: text.len(),
                max: MAX_QUERY_BYTES,
            });
        }
        let mut terms: Vec<String> = Vec::new();
        let mut seen: HashSet<String, foldhash::fast::RandomState> = HashSet::default();
        tokenize::terms(text, &mut |term| {
            // At most MAX_QUERY_TERMS + 1 entries are kept: one past the limit says it is.
            if terms.len() <= MAX_QUERY_TERMS && seen.insert(term.to_owned()) {
                terms.push(term.to_owned());
            }
        });
        if terms.len() > MAX_QUERY_TERMS {
            return Err(QueryError::TooManyTerms {
                terms: terms.len(),
                max: MAX_QUERY_TERMS,
            });
        }
        Ok(Query { text, terms })
    }

    /// The query as given.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Its distinct terms, in order of first appearance.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }
}

impl fmt::Debug for Query<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("text", &self.text)
            .field("terms", &self.terms)
            .finish()
    }
}
