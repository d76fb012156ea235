//! Resource bounds: [`ValidationLimits`], and the depth walks that enforce them before anything
//! recurses (see the [`validate` module docs](crate::validate) for where each applies).

use serde_json::{Map, Value};

use crate::model::tool::Tool;
use crate::pointer::escape_pointer_token;

/// The resource bounds of [`DefaultValidator`](crate::DefaultValidator), with their defaults.
///
/// | bound | default | what exceeding it gives |
/// |---|---|---|
/// | [`max_depth`](Self::max_depth): levels of nesting of a schema or an instance | 128 | [`Error::SchemaTooDeep`] / [`Error::InstanceTooDeep`] |
/// | [`max_expansion`](Self::max_expansion): JSON values a schema's references add when expanded | 100,000 | [`Error::SchemaTooLarge`] |
/// | [`max_recursion`](Self::max_recursion): schema levels one validation may nest | 4,096 | [`Error::InstanceTooDeep`] with a lower limit |
/// | [`pattern_backtrack_limit`](Self::pattern_backtrack_limit): backtracking regular expressions | `None`: linear-time only | [`Error::InvalidSchema`] / [`Error::PatternUndecided`] |
///
/// # Depth
///
/// A level is one array or object: `1` has depth 0, `[1]` depth 1, `{"a": [1]}` depth 2.
/// `serde_json` refuses to parse text nested 128 levels or more, so every document it parses is
/// within the default. The check runs without recursion before anything else touches the value
/// (`jsonschema` itself recurses, and overflows a thread's stack near 30,000 levels), so a
/// `serde_json::Value` built in code and nested 100,000 deep gets an error, not a crash. One
/// exception, with the same outcome: when every instance a schema accepts is within the limit
/// (each object it allows closed by `additionalProperties` and each array by `items`, down to
/// `type`s, `const`s or `enum`s without arrays and objects) and validating recurses no deeper than the schema (it holds no
/// `$ref`, `$dynamicRef`, `$recursiveRef` or `uniqueItems`), the instance is validated first
/// and its depth checked only when it is refused.
///
/// Dropping such a value recurses too (`serde_json::Value` has no iterative `Drop`): take it
/// apart with [`dismantle`] instead, or drop it on a thread with a large stack.
///
/// # References
///
/// `jsonschema` compiles a local `$ref` that is not part of a cycle by sharing its target, so a
/// few hundred bytes of definitions that each refer twice to the next ("billion laughs") make
/// validation visit 2^k subschemas, and a chain of references nests validation as deep as the
/// chain is long. Before compiling, [`DefaultValidator::compile`](crate::DefaultValidator::compile)
/// follows every reference (locally: nothing is fetched) and refuses a schema:
///
/// - whose references, expanded, would add more than [`max_expansion`](Self::max_expansion)
///   JSON values to it ([`Error::SchemaTooLarge`]; a reference into a cycle counts once); this
///   is the unit and default of the adapters' inlining budget;
/// - that nests more than [`max_depth`](Self::max_depth) subschemas at one place of the
///   instance, following references and in-place applicators (`allOf`, `anyOf`, `oneOf`,
///   `not`, `if`/`then`/`else`, `dependentSchemas`) ([`Error::SchemaTooDeep`]).
///
/// Validation then nests at most (P + 1) × (D + 1) subschemas, P being the schema's longest
/// chain at one place and D the instance's depth; D is limited to
/// `min(max_depth, max_recursion / (P + 1) - 1)`, which is `max_depth` for every schema with
/// P below 31 (all real ones) and 30 at worst. At the default 4,096 levels validation needs
/// under 2 MB of stack even in a debug build (about 400 bytes per level measured in debug,
/// under 100 in release): any thread, including async runtimes' 2 MB workers, is safe.
///
/// # Patterns
///
/// `pattern` and `patternProperties` are ECMA-262 regular expressions. By default they run on
/// the `regex` crate, which matches in time linear in the string: `(a+)+$` against 30,000
/// characters takes under a millisecond. A pattern that needs backtracking (lookaround,
/// backreferences) is refused when the schema is compiled ([`Error::InvalidSchema`] at the
/// pattern's pointer). [`pattern_backtrack_limit`](Self::pattern_backtrack_limit) `Some(n)`
/// accepts them, running `fancy-regex` with at most `n` backtracking steps per match; a match
/// that needs more leaves the instance neither valid nor invalid: [`Error::PatternUndecided`].
/// The step limit does not bound everything: an unanchored lookahead pattern such as
/// `(?=a)(a+)+$` is matched from every position of the string and takes time quadratic in its
/// length (9 s for 30,000 characters, measured), so enable it for schemas you trust only.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::{DefaultValidator, Error, validate::ValidationLimits};
///
/// let mut limits = ValidationLimits::default();
/// limits.max_depth = 4;
/// let validator = DefaultValidator::new().with_limits(limits);
/// let compiled = validator.compile(&json!({}))?;
/// let err = compiled.validate(&json!([[[[[1]]]]])).unwrap_err();
/// assert_eq!(err, Error::InstanceTooDeep { pointer: "/0/0/0/0".into(), limit: 4 });
/// # Ok::<(), toolmodel::Error>(())
/// ```
///
/// [`Error::SchemaTooDeep`]: crate::Error::SchemaTooDeep
/// [`Error::InstanceTooDeep`]: crate::Error::InstanceTooDeep
/// [`Error::SchemaTooLarge`]: crate::Error::SchemaTooLarge
/// [`Error::InvalidSchema`]: crate::Error::InvalidSchema
/// [`Error::PatternUndecided`]: crate::Error::PatternUndecided
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ValidationLimits {
    /// The most levels of nesting of a schema or an instance (default 128), and of subschemas
    /// at one place of the instance, following references.
    pub max_depth: usize,
    /// The most JSON values a schema's local references may add when expanded (default
    /// 100,000).
    pub max_expansion: usize,
    /// The most subschema levels one validation may nest (default 4,096); lowers the instance
    /// depth allowed for schemas whose chains at one place are long. Raise it only with a
    /// larger stack: about 400 bytes per level in a debug build.
    pub max_recursion: usize,
    /// `None` (the default): patterns run in linear time and patterns that need backtracking
    /// are refused. `Some(n)`: they are accepted, with at most `n` backtracking steps per
    /// match (`fancy-regex`; its own default is 1,000,000).
    pub pattern_backtrack_limit: Option<usize>,
}

impl ValidationLimits {
    /// The defaults: depth 128, expansion 100,000, recursion 4,096, linear-time patterns.
    pub const DEFAULT: Self = Self {
        max_depth: 128,
        max_expansion: 100_000,
        max_recursion: 4_096,
        pattern_backtrack_limit: None,
    };

    /// The most levels of nesting of an instance validated against a schema whose longest
    /// chain of subschemas at one place of the instance is `chain` (see the type's docs).
    pub(crate) fn instance_depth(&self, chain: usize) -> usize {
        self.max_depth
            .min((self.max_recursion / chain.saturating_add(1)).saturating_sub(1))
    }
}

impl Default for ValidationLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One open array or object of [`deeper_than`]'s walk, with the token of the child it is at.
enum Frame<'a> {
    Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>, usize),
    Object(serde_json::map::Iter<'a>, &'a str),
}

impl<'a> Frame<'a> {
    fn of(value: &'a Value) -> Option<Self> {
        match value {
            Value::Array(items) => Some(Self::Array(items.iter().enumerate(), 0)),
            Value::Object(map) => Some(Self::Object(map.iter(), "")),
            _ => None,
        }
    }

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Self::Array(items, at) => items.next().map(|(index, item)| {
                *at = index;
                item
            }),
            Self::Object(members, at) => members.next().map(|(key, member)| {
                *at = key;
                member
            }),
        }
    }

    fn push_token(&self, pointer: &mut String) {
        pointer.push('/');
        match self {
            Self::Array(_, index) => pointer.push_str(&index.to_string()),
            Self::Object(_, key) => pointer.push_str(&escape_pointer_token(key)),
        }
    }
}

/// A value as JSON text when it nests at most [`ValidationLimits::DEFAULT`]'s `max_depth` levels,
/// else a phrase saying so: printing a value recurses once per level.
pub(crate) fn shallow_text(value: &Value) -> String {
    let limit = ValidationLimits::DEFAULT.max_depth;
    if deeper_than(value, limit).is_some() {
        format!("a value nested more than {limit} levels")
    } else {
        value.to_string()
    }
}

/// The levels of arrays and objects `value` nests, itself included (0 for a scalar). Recursive:
/// only for values whose depth is known to be within a stack's reach (a schema checked with
/// [`deeper_than`]).
pub(crate) fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// The deepest limit [`deeper_than`] checks by recursion first.
const RECURSIVE_WALK_LIMIT: usize = 256;

/// Whether `value` nests at most `levels` levels (itself counted when an array or object).
/// Recurses into containers only: scalar members are answered in the loop.
fn within(value: &Value, levels: usize) -> bool {
    let member_within = |member: &Value| {
        !matches!(member, Value::Array(_) | Value::Object(_)) || within(member, levels - 1)
    };
    match value {
        Value::Array(items) => levels > 0 && items.iter().all(member_within),
        Value::Object(map) => levels > 0 && map.values().all(member_within),
        _ => true,
    }
}

/// The JSON Pointer of the first value (in document order) nested deeper than `limit` levels,
/// or `None` when `value` is within the limit. Iterative; allocation-free for values at most
/// one level deep, and for values within a limit of at most 256 levels.
#[inline]
pub(crate) fn deeper_than(value: &Value, limit: usize) -> Option<String> {
    if !matches!(value, Value::Array(_) | Value::Object(_)) {
        return None;
    }
    // The usual case, within the limit, answered by a plain recursive walk (its recursion is
    // bounded by `limit`, so only for limits a stack holds); `first_too_deep` finds the pointer.
    if limit <= RECURSIVE_WALK_LIMIT && within(value, limit) {
        return None;
    }
    first_too_deep(value, limit)
}

/// [`deeper_than`] for an array or object, by a walk without recursion.
#[cold]
#[inline(never)]
fn first_too_deep(value: &Value, limit: usize) -> Option<String> {
    if limit == 0 {
        return Some(String::new());
    }
    let mut current = Frame::of(value)?;
    // The open containers above `current`; `current` is at depth `stack.len() + 1`.
    let mut stack: Vec<Frame<'_>> = Vec::new();
    loop {
        match current.next() {
            Some(child @ (Value::Array(_) | Value::Object(_))) => {
                if stack.len() + 2 > limit {
                    let mut pointer = String::new();
                    for frame in &stack {
                        frame.push_token(&mut pointer);
                    }
                    current.push_token(&mut pointer);
                    return Some(pointer);
                }
                if let Some(frame) = Frame::of(child) {
                    stack.push(std::mem::replace(&mut current, frame));
                }
            }
            Some(_) => {}
            None => current = stack.pop()?,
        }
    }
}

/// The JSON Pointer, into the tool's full JSON ([`Tool::to_json`]), of the first value of
/// `tool` nested deeper than `limit` levels counted from the tool's own object; `None` when the
/// whole tool is within the limit. Iterative: writing, cloning or comparing a tool recurses.
pub(crate) fn tool_deeper_than(tool: &Tool, limit: usize) -> Option<String> {
    let within = |value: &Value, prefix: &str| {
        deeper_than(value, limit.saturating_sub(1)).map(|rest| format!("{prefix}{rest}"))
    };
    within(tool.input_schema.as_value(), "/inputSchema")
        .or_else(|| within(tool.output_schema.as_ref()?.as_value(), "/outputSchema"))
        .or_else(|| tool_fields_deeper_than(tool, limit))
}

/// [`tool_deeper_than`] for every field of `tool` but its schemas (for a caller that knows
/// their depth).
pub(crate) fn tool_fields_deeper_than(tool: &Tool, limit: usize) -> Option<String> {
    // The members of a map with the levels above them in the tool's JSON; the pointer is
    // spelled only for the one found too deep.
    let members = |map: &Map<String, Value>, above: usize, prefix: &str| {
        map.iter().find_map(|(key, value)| {
            deeper_than(value, limit.saturating_sub(above))
                .map(|rest| format!("{prefix}/{}{rest}", escape_pointer_token(key)))
        })
    };
    let annotations = tool.annotations.as_ref();
    annotations
        .and_then(|annotations| members(&annotations.extra, 2, "/annotations"))
        .or_else(|| {
            tool.icons
                .iter()
                .flatten()
                .enumerate()
                .find_map(|(index, icon)| members(&icon.extra, 3, &format!("/icons/{index}")))
        })
        .or_else(|| members(&tool.execution.as_ref()?.extra, 2, "/execution"))
        .or_else(|| members(tool.meta.as_ref()?, 2, "/_meta"))
        .or_else(|| members(&tool.extra, 1, ""))
}

/// Takes a JSON value apart without recursion, so that a value nested deeper than the stack
/// allows (built in code, or parsed with `serde_json`'s `unbounded_depth`) can be dropped.
///
/// Dropping a `serde_json::Value` recurses once per level: a value nested 100,000 deep
/// overflows a 2 MB stack when dropped. This moves every array item and object member out
/// before dropping its container, one level at a time.
///
/// # Examples
///
/// ```
/// use serde_json::Value;
///
/// let mut deep = Value::Null;
/// for _ in 0..100_000 {
///     deep = Value::Array(vec![deep]);
/// }
/// toolmodel::validate::dismantle(deep); // `drop(deep)` would overflow the stack
/// ```
pub fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, member)| member)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn nested(levels: usize) -> Value {
        let mut value = json!(1);
        for _ in 0..levels {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(deeper_than(&json!(1), 0), None);
        assert_eq!(deeper_than(&json!([]), 0), Some(String::new()));
        assert_eq!(deeper_than(&json!([]), 1), None);
        assert_eq!(deeper_than(&json!({"a": [1]}), 2), None);
        assert_eq!(deeper_than(&json!({"a": [1]}), 1), Some("/a".into()));
        assert_eq!(deeper_than(&nested(128), 128), None);
        assert_eq!(deeper_than(&nested(129), 128).map(|p| p.len()), Some(256));
    }

    #[test]
    fn the_pointer_names_the_first_value_too_deep_in_document_order() {
        // Depths: the root 1, `/b` and `/e` 2, `/b/1` and `/e/f` 3, `/b/1/c~1d` and
        // `/e/f/g` 4, `/e/f/g/h` 5.
        let value = json!({"a": 1, "b": [0, {"c/d": {}}], "e": {"f": {"g": {"h": []}}}});
        assert_eq!(deeper_than(&value, 1), Some("/b".into()));
        assert_eq!(deeper_than(&value, 2), Some("/b/1".into()));
        assert_eq!(deeper_than(&value, 3), Some("/b/1/c~1d".into()));
        assert_eq!(deeper_than(&value, 4), Some("/e/f/g/h".into()));
        assert_eq!(deeper_than(&value, 5), None);
    }

    #[test]
    fn a_value_nested_100_000_deep_is_checked_and_dismantled_without_recursion() {
        let deep = nested(100_000);
        let pointer = deeper_than(&deep, 128).unwrap();
        assert_eq!(pointer, "/0".repeat(128));
        dismantle(deep);
    }

    #[test]
    fn the_instance_depth_shrinks_with_long_chains() {
        let limits = ValidationLimits::DEFAULT;
        assert_eq!(limits.instance_depth(1), 128);
        assert_eq!(limits.instance_depth(30), 128);
        assert_eq!(limits.instance_depth(31), 127);
        assert_eq!(limits.instance_depth(128), 30);
        assert_eq!(limits.instance_depth(usize::MAX), 0);
    }
}
