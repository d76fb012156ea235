//! The cache of [`DefaultValidator`](crate::DefaultValidator) for raw schemas
//! ([`SchemaValidator::validate`](crate::SchemaValidator::validate) with a `&Value`): compiled
//! schemas found by their content.
//!
//! Each entry keeps the schema it was compiled from as a compact encoding (one contiguous
//! buffer: a tag per value, lengths, string bytes; maps in key order). A schema is found by a
//! hash of its encoding (foldhash, seeded per process, so that schemas chosen to collide cannot
//! be made in advance) and then compared in full with the entry's encoding: a hit is a schema
//! equal to one compiled before, never merely one with the same hash or at the same address.
//! The address of the last schemas looked up is kept as a hint: when the schema at a hinted
//! address still matches the entry's encoding (one walk over the schema against one buffer, no
//! hash, no allocation), that entry is used.
//!
//! Memory is bounded: at most [`MAX_ENTRIES`] schemas, holding at most [`MAX_BYTES`] bytes of
//! encodings in all, the oldest entry evicted first; a schema whose encoding exceeds
//! [`MAX_SCHEMA_BYTES`] is compiled for its call and not kept.

use std::{
    collections::{HashMap, VecDeque},
    hash::BuildHasher,
    sync::Arc,
};

use serde_json::Value;

use crate::error::Error;
use crate::validate::compiled::CompiledSchema;

/// The most schemas the cache holds.
pub(crate) const MAX_ENTRIES: usize = 1024;
/// The most bytes of encoded schemas the cache holds in all (64 MiB).
pub(crate) const MAX_BYTES: usize = 64 << 20;
/// The largest encoded schema the cache keeps (4 MiB).
pub(crate) const MAX_SCHEMA_BYTES: usize = 4 << 20;
/// The most address hints kept (they are cleared beyond).
const MAX_HINTS: usize = 4 * MAX_ENTRIES;

/// One cached schema: the encoding of the schema it was compiled from, and the outcome.
pub(crate) struct Entry {
    encoded: Vec<u8>,
    pub(crate) compiled: Result<Arc<CompiledSchema>, Error>,
}

/// The content-keyed cache (behind the validator's lock).
#[derive(Default)]
pub(crate) struct ContentCache {
    hasher: foldhash::fast::RandomState,
    by_hash: HashMap<u64, Vec<Arc<Entry>>, foldhash::fast::FixedState>,
    /// The address a schema was last looked up at, and the entry it was equal to then.
    hints: HashMap<usize, Arc<Entry>, foldhash::fast::FixedState>,
    /// Insertion order, for eviction.
    order: VecDeque<(u64, Arc<Entry>)>,
    bytes: usize,
}

impl ContentCache {
    /// The entry of the schema at `address` if the hint there still matches its content.
    pub(crate) fn by_hint(&self, schema: &Value) -> Option<&Arc<Entry>> {
        let entry = self.hints.get(&address(schema))?;
        let mut rest = entry.encoded.as_slice();
        (matches(schema, &mut rest) && rest.is_empty()).then_some(entry)
    }

    /// The encoding of `schema` and its hash, walking at most `levels` levels (`None` beyond:
    /// such a schema fails to compile anyway).
    pub(crate) fn key(&self, schema: &Value, levels: usize) -> Option<(u64, Vec<u8>)> {
        let mut encoded = Vec::new();
        encode(schema, levels, &mut encoded)?;
        Some((self.hasher.hash_one(&encoded), encoded))
    }

    /// The entry of a schema with this hash and encoding, if any.
    pub(crate) fn find(&self, hash: u64, encoded: &[u8]) -> Option<&Arc<Entry>> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|entry| entry.encoded == encoded)
    }

    /// Remembers that `schema`'s address holds `entry`'s content.
    pub(crate) fn hint(&mut self, schema: &Value, entry: Arc<Entry>) {
        if self.hints.len() >= MAX_HINTS {
            self.hints.clear();
        }
        self.hints.insert(address(schema), entry);
    }

    /// Caches the outcome of compiling `schema` (encoded as `encoded`, hashed as `hash`),
    /// evicting the oldest entries to stay within the bounds; a schema too large to keep is
    /// not cached. Returns the entry.
    pub(crate) fn insert(
        &mut self,
        hash: u64,
        encoded: Vec<u8>,
        schema: &Value,
        compiled: Result<Arc<CompiledSchema>, Error>,
    ) -> Arc<Entry> {
        let bytes = encoded.len();
        let entry = Arc::new(Entry { encoded, compiled });
        if bytes > MAX_SCHEMA_BYTES {
            return entry;
        }
        while self.order.len() >= MAX_ENTRIES || self.bytes + bytes > MAX_BYTES {
            let Some((old_hash, old)) = self.order.pop_front() else {
                break;
            };
            self.bytes -= old.encoded.len();
            if let Some(list) = self.by_hash.get_mut(&old_hash) {
                list.retain(|e| !Arc::ptr_eq(e, &old));
                if list.is_empty() {
                    self.by_hash.remove(&old_hash);
                }
            }
            self.hints.retain(|_, e| !Arc::ptr_eq(e, &old));
        }
        self.bytes += bytes;
        self.by_hash.entry(hash).or_default().push(entry.clone());
        self.order.push_back((hash, entry.clone()));
        self.hint(schema, entry.clone());
        entry
    }

    /// The number of schemas held.
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

fn address(schema: &Value) -> usize {
    std::ptr::from_ref(schema) as usize
}

/// The value tags of the encoding.
const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UNSIGNED: u8 = 3;
const SIGNED: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

/// Appends the encoding of `value` (equal encodings for equal values: maps in key order,
/// numbers by their exact representation). `None` when `value` nests more than `levels` levels.
fn encode(value: &Value, levels: usize, out: &mut Vec<u8>) -> Option<()> {
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            let (tag, bits) = number(n);
            out.push(tag);
            out.extend_from_slice(&bits.to_le_bytes());
        }
        Value::String(text) => {
            out.push(STRING);
            bytes(text, out);
        }
        Value::Array(items) => {
            let levels = levels.checked_sub(1)?;
            out.push(ARRAY);
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for item in items {
                encode(item, levels, out)?;
            }
        }
        Value::Object(map) => {
            let levels = levels.checked_sub(1)?;
            out.push(OBJECT);
            out.extend_from_slice(&(map.len() as u64).to_le_bytes());
            for (key, member) in map {
                bytes(key, out);
                encode(member, levels, out)?;
            }
        }
    }
    Some(())
}

fn number(n: &serde_json::Number) -> (u8, u64) {
    if let Some(u) = n.as_u64() {
        (UNSIGNED, u)
    } else if let Some(i) = n.as_i64() {
        (SIGNED, u64::from_le_bytes(i.to_le_bytes()))
    } else {
        (FLOAT, n.as_f64().map_or(0, f64::to_bits))
    }
}

fn bytes(text: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Takes `n` bytes off the front of `rest`.
fn take<'b>(rest: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
    let (head, tail) = rest.split_at_checked(n)?;
    *rest = tail;
    Some(head)
}

fn take_u64(rest: &mut &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(take(rest, 8)?.try_into().ok()?))
}

fn take_str<'b>(rest: &mut &'b [u8]) -> Option<&'b [u8]> {
    let len = usize::try_from(take_u64(rest)?).ok()?;
    take(rest, len)
}

/// Whether `value` is what the front of `rest` encodes (consuming it). The walk follows the
/// encoding, which is bounded, so it nests no deeper than the cached schema did.
fn matches(value: &Value, rest: &mut &[u8]) -> bool {
    fn go(value: &Value, rest: &mut &[u8]) -> Option<bool> {
        let tag = *take(rest, 1)?.first()?;
        Some(match value {
            Value::Null => tag == NULL,
            Value::Bool(b) => tag == if *b { TRUE } else { FALSE },
            Value::Number(n) => {
                let (own, bits) = number(n);
                own == tag && take_u64(rest)? == bits
            }
            Value::String(text) => tag == STRING && take_str(rest)? == text.as_bytes(),
            Value::Array(items) => {
                if tag != ARRAY || take_u64(rest)? != items.len() as u64 {
                    return Some(false);
                }
                for item in items {
                    if !go(item, rest)? {
                        return Some(false);
                    }
                }
                true
            }
            Value::Object(map) => {
                if tag != OBJECT || take_u64(rest)? != map.len() as u64 {
                    return Some(false);
                }
                for (key, member) in map {
                    if take_str(rest)? != key.as_bytes() || !go(member, rest)? {
                        return Some(false);
                    }
                }
                true
            }
        })
    }
    go(value, rest).unwrap_or(false)
}
