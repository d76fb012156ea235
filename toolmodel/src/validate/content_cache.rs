//! The cache of [`DefaultValidator`](crate::DefaultValidator) for raw schemas
//! ([`SchemaValidator::validate`](crate::SchemaValidator::validate) with a `&Value`): compiled
//! schemas found by their content.
//!
//! A schema is found by a hash of its content (foldhash, seeded per process, so that schemas
//! chosen to collide cannot be made in advance) and then compared in full with the copy the
//! entry holds: a hit is a schema equal to one compiled before, never merely one with the same
//! hash or at the same address. The address of the last schemas looked up is kept as a hint:
//! when the schema at a hinted address is equal to the entry's copy (one comparison, no hash),
//! that entry is used.
//!
//! Memory is bounded: at most [`MAX_ENTRIES`] schemas, holding at most [`MAX_VALUES`] JSON
//! values in all (the copies), the oldest entry evicted first; a schema larger than
//! [`MAX_SCHEMA_VALUES`] is compiled for its call and not kept.

use std::{
    collections::{HashMap, VecDeque},
    hash::{BuildHasher, Hasher},
    sync::Arc,
};

use serde_json::Value;

use crate::{Error, validate::validator::CompiledSchema};

/// The most schemas the cache holds.
pub(crate) const MAX_ENTRIES: usize = 1024;
/// The most JSON values the cached copies hold in all.
pub(crate) const MAX_VALUES: usize = 4_000_000;
/// The largest schema (in JSON values) the cache keeps.
pub(crate) const MAX_SCHEMA_VALUES: usize = 100_000;
/// The most address hints kept (they are cleared beyond).
const MAX_HINTS: usize = 4 * MAX_ENTRIES;

/// One cached schema: the copy it was compiled from, and the outcome.
pub(crate) struct Entry {
    schema: Value,
    values: usize,
    pub(crate) compiled: Result<Arc<CompiledSchema>, Error>,
}

/// The content-keyed cache (behind the validator's lock).
pub(crate) struct ContentCache {
    hasher: foldhash::fast::RandomState,
    by_hash: HashMap<u64, Vec<Arc<Entry>>, foldhash::fast::FixedState>,
    /// The address a schema was last looked up at, and the entry it was equal to then.
    hints: HashMap<usize, Arc<Entry>, foldhash::fast::FixedState>,
    /// Insertion order, for eviction.
    order: VecDeque<(u64, Arc<Entry>)>,
    values: usize,
}

impl Default for ContentCache {
    fn default() -> Self {
        Self {
            hasher: foldhash::fast::RandomState::default(),
            by_hash: HashMap::default(),
            hints: HashMap::default(),
            order: VecDeque::new(),
            values: 0,
        }
    }
}

impl ContentCache {
    /// The entry of the schema at `address` if the hint there still holds an equal schema.
    pub(crate) fn by_hint(&self, schema: &Value) -> Option<&Arc<Entry>> {
        let entry = self.hints.get(&address(schema))?;
        (entry.schema == *schema).then_some(entry)
    }

    /// The hash of `schema`'s content, walking at most `levels` levels (`None` beyond: such a
    /// schema fails to compile anyway).
    pub(crate) fn hash(&self, schema: &Value, levels: usize) -> Option<u64> {
        let mut hasher = self.hasher.build_hasher();
        hash_value(schema, levels, &mut hasher)?;
        Some(hasher.finish())
    }

    /// The entry of a schema equal to `schema` with this hash, if any.
    pub(crate) fn find(&self, hash: u64, schema: &Value) -> Option<&Arc<Entry>> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|entry| entry.schema == *schema)
    }

    /// Remembers that `schema`'s address holds `entry`'s content.
    pub(crate) fn hint(&mut self, schema: &Value, entry: Arc<Entry>) {
        if self.hints.len() >= MAX_HINTS {
            self.hints.clear();
        }
        self.hints.insert(address(schema), entry);
    }

    /// Caches the outcome of compiling `schema` under `hash` (a copy of `schema` is kept),
    /// evicting the oldest entries to stay within the bounds; a schema too large to keep is
    /// not cached. Returns the entry.
    pub(crate) fn insert(
        &mut self,
        hash: u64,
        schema: &Value,
        compiled: Result<Arc<CompiledSchema>, Error>,
    ) -> Arc<Entry> {
        let values = count_values(schema, MAX_SCHEMA_VALUES);
        let entry = Arc::new(Entry {
            schema: schema.clone(),
            values,
            compiled,
        });
        if values > MAX_SCHEMA_VALUES {
            return entry;
        }
        while self.order.len() >= MAX_ENTRIES || self.values + values > MAX_VALUES {
            let Some((old_hash, old)) = self.order.pop_front() else {
                break;
            };
            self.values -= old.values;
            if let Some(list) = self.by_hash.get_mut(&old_hash) {
                list.retain(|e| !Arc::ptr_eq(e, &old));
                if list.is_empty() {
                    self.by_hash.remove(&old_hash);
                }
            }
            self.hints.retain(|_, e| !Arc::ptr_eq(e, &old));
        }
        self.values += values;
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

/// Feeds `value` to `hasher`, consistently with `Value`'s equality (maps in key order, numbers
/// by their exact representation). `None` when `value` nests more than `levels` levels.
fn hash_value(value: &Value, levels: usize, hasher: &mut impl Hasher) -> Option<()> {
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(b) => hasher.write_u8(1 + u8::from(*b)),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                hasher.write_u8(3);
                hasher.write_u64(u);
            } else if let Some(i) = n.as_i64() {
                hasher.write_u8(4);
                hasher.write_i64(i);
            } else {
                hasher.write_u8(5);
                hasher.write_u64(n.as_f64().map_or(0, f64::to_bits));
            }
        }
        Value::String(s) => {
            hasher.write_u8(6);
            hasher.write(s.as_bytes());
            hasher.write_usize(s.len());
        }
        Value::Array(items) => {
            let levels = levels.checked_sub(1)?;
            hasher.write_u8(7);
            hasher.write_usize(items.len());
            for item in items {
                hash_value(item, levels, hasher)?;
            }
        }
        Value::Object(map) => {
            let levels = levels.checked_sub(1)?;
            hasher.write_u8(8);
            hasher.write_usize(map.len());
            for (key, member) in map {
                hasher.write(key.as_bytes());
                hasher.write_usize(key.len());
                hash_value(member, levels, hasher)?;
            }
        }
    }
    Some(())
}

/// The number of JSON values in `value`, counting stops past `stop`.
fn count_values(value: &Value, stop: usize) -> usize {
    let mut stack = vec![value];
    let mut count = 0usize;
    while let Some(value) = stack.pop() {
        count += 1;
        if count > stop {
            break;
        }
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}
