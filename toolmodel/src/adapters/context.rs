//! The state a schema conversion carries while it walks a schema: where it is (a JSON Pointer),
//! the options, and the warnings found so far.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::options::ConvertOptions;
use super::target::Target;
use super::warning::{Action, Warning};
use crate::error::Error;
use crate::pointer::push_token;
use crate::validate::limits::deeper_than;
use crate::validate::violation::SchemaSlot;

/// The deepest JSON nesting a converted schema may have. `serde_json` refuses to parse documents
/// nested deeper than 128 levels; this leaves room for the tool around the schema.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 120;

/// A walk over one schema of one tool.
///
/// Where the walk is, as a JSON Pointer, is kept in three parts: `base`, where the walk
/// started; `pointer`, the tokens written out below it (escaped); and `tail`, the entries and
/// items below those that [`Ctx::each_entry`] and [`Ctx::each_item`] entered without writing
/// them: a link on the stack per level, borrowing the entry's name. Most levels are left
/// without a warning, so most names are never copied (and a walk that never calls
/// [`Ctx::enter`] allocates nothing for its place); a pointer is written out in full only for
/// a warning or an error.
pub(crate) struct Ctx<'a, 't> {
    pub(crate) target: Target,
    pub(crate) options: &'a ConvertOptions,
    slot: Option<SchemaSlot>,
    /// Where the walk started (`/inputSchema`, ...).
    base: &'a str,
    /// The pointer from `base` down to `tail`, escaped, without a trailing `/`.
    pointer: String,
    /// The levels below `pointer`, innermost first.
    tail: Option<&'t Level<'t>>,
    warnings: &'a mut Vec<Warning>,
    /// Set by a rewrite that nests schemas deeper than they were (wrapping one in an `anyOf`),
    /// so that the converted schema's depth is checked again.
    pub(crate) deepened: bool,
}

/// One level of [`Ctx`]'s tail: an entry or an item under a keyword, below the levels of
/// `parent`.
struct Level<'t> {
    token: Token<'t>,
    parent: Option<&'t Level<'t>>,
}

#[derive(Clone, Copy)]
enum Token<'t> {
    /// An entry of the object under a keyword (`properties/name`), both unescaped.
    Entry(&'t str, &'t str),
    /// An item of the array under a keyword (`anyOf/0`), the keyword unescaped.
    Item(&'t str, usize),
}

impl Token<'_> {
    fn write(self, pointer: &mut String) {
        match self {
            Self::Entry(keyword, name) => {
                push_token(pointer, keyword);
                push_token(pointer, name);
            }
            Self::Item(keyword, index) => {
                push_token(pointer, keyword);
                push_index(pointer, index);
            }
        }
    }
}

/// Appends `/` and an array index.
fn push_index(pointer: &mut String, index: usize) {
    pointer.push('/');
    // `itoa` (already in the tree through serde_json) rather than the formatting machinery: a
    // walk enters every array item.
    pointer.push_str(itoa::Buffer::new().format(index));
}

/// Writes the levels of `tail`, outermost first, after `pointer`.
fn write_levels(tail: Option<&Level<'_>>, pointer: &mut String) {
    if let Some(level) = tail {
        write_levels(level.parent, pointer);
        level.token.write(pointer);
    }
}

impl<'a> Ctx<'a, '_> {
    /// A walk that starts at `base` (`/inputSchema`, `/outputSchema`, `/function/parameters`,
    /// ...).
    pub(crate) fn new(
        target: Target,
        options: &'a ConvertOptions,
        slot: Option<SchemaSlot>,
        base: &'a str,
        warnings: &'a mut Vec<Warning>,
    ) -> Self {
        Self {
            target,
            options,
            slot,
            base,
            pointer: String::new(),
            tail: None,
            warnings,
            deepened: false,
        }
    }
}

impl<'t> Ctx<'_, 't> {
    /// The pointer to the current schema object.
    pub(crate) fn pointer(&self) -> String {
        self.written(0)
    }

    /// The pointer to `token` inside the current schema object.
    pub(crate) fn pointer_to(&self, token: &str) -> String {
        let mut out = self.written(token.len() + 1);
        push_token(&mut out, token);
        out
    }

    /// The pointer to the current schema object written out in full, with room for `extra`
    /// bytes more (and for a level or two of the tail, which is not measured first).
    fn written(&self, extra: usize) -> String {
        let mut out = String::with_capacity(self.base.len() + self.pointer.len() + 24 + extra);
        out.push_str(self.base);
        out.push_str(&self.pointer);
        write_levels(self.tail, &mut out);
        out
    }

    /// Writes the tail's levels into `pointer`, before a level is entered there; on the
    /// first, makes room for a few levels, so that entering them does not reallocate.
    fn write_tail(&mut self) {
        if self.pointer.capacity() == 0 {
            self.pointer.reserve(120);
        }
        if let Some(tail) = self.tail.take() {
            write_levels(Some(tail), &mut self.pointer);
        }
    }

    /// Moves one level down, to `token`; returns what to give [`Ctx::leave`] to come back.
    pub(crate) fn enter(&mut self, token: &str) -> usize {
        self.write_tail();
        let len = self.pointer.len();
        push_token(&mut self.pointer, token);
        len
    }

    /// Moves one level down, to the array item at `index`; returns what to give
    /// [`Ctx::leave`] to come back.
    pub(crate) fn enter_index(&mut self, index: usize) -> usize {
        self.write_tail();
        let len = self.pointer.len();
        push_index(&mut self.pointer, index);
        len
    }

    /// What to give [`Ctx::leave`] to come back here after several [`Ctx::enter`]s.
    pub(crate) fn mark(&mut self) -> usize {
        self.write_tail();
        self.pointer.len()
    }

    /// Comes back from [`Ctx::enter`].
    pub(crate) fn leave(&mut self, len: usize) {
        self.pointer.truncate(len);
    }

    /// The schema being converted: a tool's input or output schema (`None` elsewhere).
    pub(crate) fn slot(&self) -> Option<SchemaSlot> {
        self.slot
    }

    /// Runs `f` one level down, at `token` (one JSON Pointer reference token, unescaped).
    pub(crate) fn at<T>(&mut self, token: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.enter(token);
        let out = f(self);
        self.leave(len);
        out
    }

    /// Runs `f` with a walk one level below this one, at `token`, without writing the token
    /// out: the walk below borrows it ([`Ctx`]'s tail).
    fn below<T>(&mut self, token: Token<'_>, f: impl FnOnce(&mut Ctx<'_, '_>) -> T) -> T {
        let level = Level {
            token,
            parent: self.tail,
        };
        let len = self.pointer.len();
        let mut below = Ctx {
            target: self.target,
            options: self.options,
            slot: self.slot,
            base: self.base,
            pointer: std::mem::take(&mut self.pointer),
            tail: Some(&level),
            warnings: &mut *self.warnings,
            deepened: self.deepened,
        };
        let out = f(&mut below);
        self.deepened = below.deepened;
        self.pointer = below.pointer;
        // The walk below may have written its tail out.
        self.pointer.truncate(len);
        out
    }

    /// Runs `f` on each entry of `entries`, the object under `keyword` in the current schema
    /// object, one level down at `keyword/name` (written out only when a pointer is needed).
    /// Stops at the first error, back at the current schema object either way.
    pub(crate) fn each_entry<'v, E>(
        &mut self,
        keyword: &str,
        entries: &'v mut Map<String, Value>,
        mut f: impl FnMut(&'v mut Value, &mut Ctx<'_, '_>) -> Result<(), E>,
    ) -> Result<(), E> {
        for (name, child) in entries.iter_mut() {
            self.below(Token::Entry(keyword, name), |below| f(child, below))?;
        }
        Ok(())
    }

    /// Runs `f` on each item of `items`, the array under `keyword` in the current schema
    /// object, one level down at `keyword/index`; as [`Ctx::each_entry`] otherwise.
    pub(crate) fn each_item<'v, E>(
        &mut self,
        keyword: &str,
        items: &'v mut [Value],
        mut f: impl FnMut(&'v mut Value, &mut Ctx<'_, '_>) -> Result<(), E>,
    ) -> Result<(), E> {
        for (index, child) in items.iter_mut().enumerate() {
            self.below(Token::Item(keyword, index), |below| f(child, below))?;
        }
        Ok(())
    }

    /// Records a warning about `feature` at `token` inside the current schema object (or at
    /// the object itself when `token` is `None`). `feature` and `detail` are borrowed when they
    /// are `'static`, so that most warnings allocate their pointer only.
    pub(crate) fn warn(
        &mut self,
        token: Option<&str>,
        feature: impl Into<Cow<'static, str>>,
        action: Action,
        detail: impl Into<Cow<'static, str>>,
    ) {
        let pointer = match token {
            Some(token) => self.pointer_to(token),
            None => self.pointer(),
        };
        self.record(pointer, feature.into(), action, detail.into());
    }

    /// Records a warning about `keyword`, at that keyword of the current schema object.
    fn warn_keyword(
        &mut self,
        keyword: Cow<'static, str>,
        action: Action,
        detail: impl Into<Cow<'static, str>>,
    ) {
        let pointer = self.pointer_to(&keyword);
        self.record(pointer, keyword, action, detail.into());
    }

    fn record(
        &mut self,
        pointer: String,
        feature: Cow<'static, str>,
        action: Action,
        detail: Cow<'static, str>,
    ) {
        self.warnings.push(Warning {
            target: self.target,
            pointer,
            feature,
            action,
            slot: self.slot,
            detail,
        });
    }

    /// A conversion error at `token` inside the current schema object.
    pub(crate) fn error(&self, token: Option<&str>, reason: impl Into<String>) -> Error {
        Error::Conversion {
            target: self.target.as_str(),
            pointer: match token {
                Some(token) => self.pointer_to(token),
                None => self.pointer(),
            },
            reason: reason.into(),
        }
    }

    /// Removes an unsupported constraint keyword: into `moved` (to be written into the
    /// description by [`write_moved`]) when the options say so, else dropped; warns either way
    /// (the action says which). `keyword` is borrowed when `'static`, as is `why`.
    pub(crate) fn move_or_drop(
        &mut self,
        schema: &mut Map<String, Value>,
        keyword: impl Into<Cow<'static, str>>,
        moved: &mut Moved,
        why: impl Into<Cow<'static, str>>,
    ) {
        let keyword = keyword.into();
        let Some(value) = schema.remove(&*keyword) else {
            return;
        };
        let action = if self.options.constraints_to_description {
            moved.insert(keyword.clone(), value);
            Action::MovedToDescription
        } else {
            Action::Dropped { widened: true }
        };
        self.warn_keyword(keyword, action, why);
    }

    /// Removes an annotation (or unknown keyword) the target cannot hold; the schema keeps its
    /// meaning.
    pub(crate) fn drop_annotation(
        &mut self,
        schema: &mut Map<String, Value>,
        keyword: impl Into<Cow<'static, str>>,
        why: impl Into<Cow<'static, str>>,
    ) {
        let keyword = keyword.into();
        if schema.remove(&*keyword).is_some() {
            self.warn_keyword(keyword, Action::Dropped { widened: false }, why);
        }
    }
}

/// The keywords moved out of one schema object, to be written into its description by
/// [`write_moved`]: a short list (usually empty, else a keyword or two; never more than the
/// assertion keywords JSON Schema defines, as only those are moved, each out of its map once),
/// kept in the order moved and written in key order.
#[derive(Default)]
pub(crate) struct Moved(Vec<(Cow<'static, str>, Value)>);

impl Moved {
    /// Adds `keyword` and its value (replacing the value a keyword of that name moved before).
    pub(crate) fn insert(&mut self, keyword: Cow<'static, str>, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == keyword) {
            Some((_, place)) => *place = value,
            None => self.0.push((keyword, value)),
        }
    }
}

/// [`Moved`] serialized as a JSON object, keys in order (as a `Map` would write them).
struct InKeyOrder<'m>(&'m [(Cow<'static, str>, Value)]);

impl serde::Serialize for InKeyOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (&**k, v)))
    }
}

/// Appends the keywords moved out of a schema object to its `description`, as compact JSON
/// (`{"minLength":3,"pattern":"^a"}`) after a blank line.
pub(crate) fn write_moved(schema: &mut Map<String, Value>, moved: Moved) {
    let Moved(mut moved) = moved;
    if moved.is_empty() {
        return;
    }
    moved.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // Straight into bytes (`Display` would go through the formatting machinery per token).
    // Cannot fail: the keys are strings and the values JSON.
    let text = serde_json::to_string(&InKeyOrder(&moved)).unwrap_or_default();
    match schema.get_mut("description") {
        Some(Value::String(existing)) if !existing.is_empty() => {
            existing.push_str("\n\n");
            existing.push_str(&text);
        }
        Some(place) => *place = Value::String(text),
        None => {
            schema.insert("description".into(), Value::String(text));
        }
    }
}

/// A deep copy of `value`, after checking that it nests at most [`MAX_SCHEMA_DEPTH`] levels
/// below itself (the copy recurses once per level). `serde_json`'s own clone builds each map
/// in bulk, which is faster than any copy that checks as it goes (measured).
///
/// # Errors
///
/// [`Error::SchemaTooDeep`] as [`check_depth`] gives it.
pub(crate) fn copy_within_depth(value: &Value, base: &str) -> Result<Value, Error> {
    check_depth(value, base)?;
    Ok(value.clone())
}

/// Checks, without recursion (and without allocating unless it fails), that `value` nests at
/// most [`MAX_SCHEMA_DEPTH`] levels below itself.
///
/// # Errors
///
/// [`Error::SchemaTooDeep`] with the pointer (after `base`) of the first value found too deep.
pub(crate) fn check_depth(value: &Value, base: &str) -> Result<(), Error> {
    // `deeper_than` counts `value` itself as level 1.
    match deeper_than(value, MAX_SCHEMA_DEPTH + 1) {
        None => Ok(()),
        Some(rest) => Err(Error::SchemaTooDeep {
            pointer: format!("{base}{rest}"),
            limit: MAX_SCHEMA_DEPTH,
        }),
    }
}

/// The JSON Schema `type` names.
pub(crate) const JSON_TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// The `type` keyword of a schema object as a list of names (empty when absent or malformed).
pub(crate) fn type_names(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the `type` keyword of a schema object names `name` (alone or in a list).
pub(crate) fn has_type(schema: &Map<String, Value>, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(one)) => one == name,
        Some(Value::Array(many)) => many.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// The JSON Schema type name of an instance value.
pub(crate) fn instance_type(value: &Value) -> &'static str {
    crate::model::schema::json_type(value)
}

/// For the transforms' unit tests: runs `transform` on `schema` for `target` in a walk that
/// starts at `base`, and returns the transformed schema (or the error) with the warnings,
/// sorted.
#[cfg(test)]
pub(crate) fn run_transform(
    target: Target,
    options: &ConvertOptions,
    base: &str,
    mut schema: Value,
    transform: impl FnOnce(&mut Value, &mut Ctx<'_, '_>) -> Result<(), Error>,
) -> (Result<Value, Error>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let mut ctx = Ctx::new(
        target,
        options,
        Some(SchemaSlot::Input),
        base,
        &mut warnings,
    );
    let result = transform(&mut schema, &mut ctx);
    warnings.sort();
    (result.map(|()| schema), warnings)
}

/// For the unit tests: each warning's pointer and action.
#[cfg(test)]
pub(crate) fn pointers_and_actions(warnings: &[Warning]) -> Vec<(&str, Action)> {
    warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.action))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Names entered by `each_entry` and `each_item` are written out where a pointer is
    /// needed, escaped, in order, below and above levels entered with `enter`; leaving a level
    /// restores the pointer of the level above.
    #[test]
    fn pointers_below_entries_and_items_are_written_when_needed() {
        let options = ConvertOptions::default();
        let mut warnings = Vec::new();
        let mut ctx = Ctx::new(
            Target::OpenAiChat,
            &options,
            None,
            "/inputSchema",
            &mut warnings,
        );
        let mut properties = json!({"a/b": {"anyOf": [{"items": {}}]}, "c~d": {}});
        let Value::Object(properties) = &mut properties else {
            unreachable!()
        };
        let result: Result<(), Error> = ctx.each_entry("properties", properties, |child, ctx| {
            ctx.warn(None, "x", Action::Rewritten { exact: true }, "entry");
            if let Some(Value::Array(branches)) = child.get_mut("anyOf") {
                ctx.each_item("anyOf", branches, |_, ctx| {
                    let mark = ctx.enter("items");
                    ctx.warn(Some("x"), "x", Action::Rewritten { exact: true }, "item");
                    ctx.leave(mark);
                    ctx.warn(None, "x", Action::Rewritten { exact: true }, "branch");
                    Ok(())
                })?;
            }
            ctx.warn(Some("k"), "x", Action::Rewritten { exact: true }, "after");
            Err(ctx.error(Some("e"), "stop"))
        });
        let Err(Error::Conversion { pointer, .. }) = result else {
            panic!("expected the error of the first entry")
        };
        assert_eq!(pointer, "/inputSchema/properties/a~1b/e");
        ctx.warn(None, "x", Action::Rewritten { exact: true }, "root");
        let pointers: Vec<&str> = warnings.iter().map(|w| w.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/inputSchema/properties/a~1b",
                "/inputSchema/properties/a~1b/anyOf/0/items/x",
                "/inputSchema/properties/a~1b/anyOf/0",
                "/inputSchema/properties/a~1b/k",
                "/inputSchema",
            ]
        );
    }

    #[test]
    fn depth_is_checked_without_recursion() {
        let mut deep = json!({"type": "string"});
        for _ in 0..200 {
            deep = json!({"items": deep});
        }
        let Err(Error::SchemaTooDeep { pointer, limit }) = check_depth(&deep, "/inputSchema")
        else {
            panic!("expected SchemaTooDeep")
        };
        assert_eq!(limit, MAX_SCHEMA_DEPTH);
        assert!(
            pointer.starts_with("/inputSchema/items/items/"),
            "{pointer}"
        );
        assert!(check_depth(&json!({"a": [1, {"b": 2}]}), "").is_ok());
    }

    #[test]
    fn moved_keywords_follow_the_description() {
        let mut schema = json!({"description": "A name"})
            .as_object()
            .unwrap()
            .clone();
        let mut moved = Moved::default();
        moved.insert("pattern".into(), json!("^a"));
        moved.insert("minLength".into(), json!(3));
        write_moved(&mut schema, moved);
        assert_eq!(
            schema["description"],
            json!("A name\n\n{\"minLength\":3,\"pattern\":\"^a\"}")
        );
    }
}
