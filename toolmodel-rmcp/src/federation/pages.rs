//! Every page of one of an upstream's lists (MCP "Pagination"): `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`.
//!
//! The pages are bounded: at most [`MAX_PAGES`], each within a time limit, and a cursor the
//! server already sent ends the listing with an error instead of a loop. Their cache hints
//! (`ttlMs`, `cacheScope`, SEP-2549) are merged into one for the whole list ([`CacheHint`]).

use std::{collections::HashSet, future::Future, time::Duration};

use rmcp::{model::CacheScope, service::ServiceError};

use crate::federation::redact::Redactor;

/// The most pages read from one server's list.
pub const MAX_PAGES: usize = 100;

/// One page: its items, the cursor of the next one, its cache hint.
pub(crate) type Page<T> = (Vec<T>, Option<String>, CacheHint);

/// How long, and for whom, a list may be kept (SEP-2549): `ttlMs` and `cacheScope`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CacheHint {
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) cache_scope: Option<CacheScope>,
}

impl CacheHint {
    /// A list's `ttlMs` and `cacheScope`.
    pub(crate) fn new(ttl_ms: Option<u64>, cache_scope: Option<CacheScope>) -> Self {
        Self {
            ttl_ms,
            cache_scope,
        }
    }

    /// The hint of a list made of two: the shorter `ttlMs` (none when either has none), and
    /// `private` when either is, `public` when both are, none otherwise.
    pub(crate) fn and(self, other: Self) -> Self {
        let ttl_ms = self.ttl_ms.zip(other.ttl_ms).map(|(a, b)| a.min(b));
        let cache_scope = match (self.cache_scope, other.cache_scope) {
            (Some(CacheScope::Private), _) | (_, Some(CacheScope::Private)) => {
                Some(CacheScope::Private)
            }
            (Some(CacheScope::Public), Some(CacheScope::Public)) => Some(CacheScope::Public),
            _ => None,
        };
        Self {
            ttl_ms,
            cache_scope,
        }
    }

    /// The hint of lists of each hint of `hints` put together; the default for none.
    pub(crate) fn all(hints: impl IntoIterator<Item = Self>) -> Self {
        hints.into_iter().reduce(Self::and).unwrap_or_default()
    }
}

/// Every item of the list `method` (its name, for the messages), in the order the server sent
/// them, and the pages' merged cache hint; `page` asks for the page at a cursor (`None`: the
/// first), each within `limit` (`limit_name` is the setting's name, for the messages).
///
/// # Errors
///
/// A sentence naming the cause (the server's secrets removed by `redactor`): a page failed
/// or took longer than `limit`, a cursor repeated, more than [`MAX_PAGES`] pages.
pub(crate) async fn all_pages<T, F, Fut>(
    method: &str,
    limit: Duration,
    limit_name: &str,
    redactor: &Redactor,
    mut page: F,
) -> Result<(Vec<T>, CacheHint), String>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Page<T>, ServiceError>>,
{
    let mut items = Vec::new();
    let mut hints = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for _ in 0..MAX_PAGES {
        let (mut listed, next, hint) = tokio::time::timeout(limit, page(cursor.clone()))
            .await
            .map_err(|_| {
                format!(
                    "no answer to {method} within {} ms ({limit_name})",
                    limit.as_millis()
                )
            })?
            .map_err(|err| format!("{method} failed: {}", redactor.error(&err)))?;
        items.append(&mut listed);
        hints.push(hint);
        match next {
            None => return Ok((items, CacheHint::all(hints))),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(format!(
                    "{method} sent the cursor {} twice: stopped instead of looping",
                    redactor.text(&format!("{next:?}"))
                ));
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(format!("{method} has more than {MAX_PAGES} pages: stopped"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merged_hint_keeps_the_shorter_ttl_and_the_narrower_scope() {
        let public = Some(CacheScope::Public);
        let private = Some(CacheScope::Private);
        assert_eq!(
            CacheHint::new(Some(60_000), public).and(CacheHint::new(Some(5_000), public)),
            CacheHint::new(Some(5_000), public)
        );
        assert_eq!(
            CacheHint::new(Some(60_000), public).and(CacheHint::new(None, private)),
            CacheHint::new(None, private)
        );
        assert_eq!(
            CacheHint::all([
                CacheHint::new(Some(1), public),
                CacheHint::new(Some(2), None)
            ]),
            CacheHint::new(Some(1), None)
        );
        assert_eq!(CacheHint::all([]), CacheHint::default());
    }

    #[tokio::test]
    async fn a_repeated_cursor_stops_the_listing() {
        let err = all_pages(
            "prompts/list",
            Duration::from_secs(1),
            "timeout",
            &Redactor::default(),
            |_cursor| async { Ok((vec![1], Some("again".to_owned()), CacheHint::default())) },
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            "prompts/list sent the cursor \"again\" twice: stopped instead of looping"
        );
    }
}
