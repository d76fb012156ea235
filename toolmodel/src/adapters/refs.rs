//! Local references (`$ref`): resolving them, inlining them within a size budget, and finding
//! cycles.
//!
//! Only references into the schema itself are followed: `#` and `#/...` JSON Pointer fragments
//! (RFC 6901, percent-decoded as URI fragments are). Anything else is an error naming it:
//! [`Error::ExternalRef`] for another resource, [`Error::Conversion`] for an anchor (`#name`).
//! Nothing is ever fetched.
//!
//! Inlining replaces `{"$ref": R, ...siblings}` by the schema R points to, merged with the
//! siblings ([`super::combinators::merge`]; in draft-07 siblings of `$ref` are ignored
//! by validators, so only their annotations are kept). Every JSON value copied counts against
//! the budget ([`ConvertOptions::inline_budget`](super::ConvertOptions::inline_budget)), so
//! that a small schema whose references double at each level (a "billion laughs") stops with
//! [`Error::SchemaTooLarge`] instead of eating the memory. A reference met again while its own
//! target is being inlined is recursive: it is kept where the target supports that, else it is
//! [`Error::RecursiveSchema`], or, when the caller allows widening, removed with a warning.

use std::{borrow::Cow, collections::BTreeSet};

use serde_json::{Map, Value};

use super::{
    combinators::{check_merge, merge},
    context::{Ctx, MAX_SCHEMA_DEPTH},
    keywords::{Token, each_subschema, for_each_subschema, is_annotation},
    warning::Action,
};
use crate::error::Error;

/// What a `$ref` value refers to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reference<'a> {
    /// A JSON Pointer into the schema itself, decoded into reference tokens (`#` is empty).
    Pointer(Vec<String>),
    /// A plain-name fragment, `#name`.
    Anchor(&'a str),
    /// Another resource.
    External(&'a str),
}

/// Reads a `$ref` value. A pointer whose percent-encoding is not valid UTF-8 is read as an
/// external reference (it resolves to nothing here).
pub(crate) fn parse_reference(reference: &str) -> Reference<'_> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Reference::External(reference);
    };
    if fragment.is_empty() {
        return Reference::Pointer(Vec::new());
    }
    let Some(path) = fragment.strip_prefix('/') else {
        return Reference::Anchor(fragment);
    };
    let tokens: Option<Vec<String>> = path.split('/').map(decode_token).collect();
    tokens.map_or(Reference::External(reference), Reference::Pointer)
}

/// One reference token of a URI fragment: percent-decoded, then unescaped (RFC 6901: `~1` is
/// `/`, `~0` is `~`). A token with neither `%` nor `~`, the usual one, is copied as it is.
fn decode_token(raw: &str) -> Option<String> {
    if !raw.bytes().any(|b| b == b'%' || b == b'~') {
        return Some(raw.to_owned());
    }
    percent_decode(raw).map(|t| t.replace("~1", "/").replace("~0", "~"))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The value at `tokens` in `root`.
pub(crate) fn resolve<'v>(root: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    tokens.iter().try_fold(root, |value, token| match value {
        Value::Object(map) => map.get(token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// The number of JSON values in `value` (itself included), counted without recursion.
pub(crate) fn count_values(value: &Value) -> usize {
    let mut stack = vec![value];
    let mut count = 0;
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    count
}

/// Which references to inline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Every reference (targets without references).
    All,
    /// Only references with sibling keywords (targets that take `$ref` alone, as OpenAI strict
    /// mode does).
    WithSiblings,
}

/// What to do with a recursive reference.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnCycle {
    /// Keep it (the target supports recursion).
    Keep,
    /// Keep it when it names a root definition (`#/$defs/x`, `#/definitions/x`), as Gemini's
    /// root-level `defs` allow; otherwise as `Fail` (the tests' variant) does.
    KeepRootDefs,
    /// An error, or, when widening is allowed, a warning and the reference removed (what the
    /// other variants do with the references they cannot keep).
    #[cfg(test)]
    Fail,
}

/// The root definitions keywords.
pub(crate) const DEFS: [&str; 2] = ["$defs", "definitions"];

fn is_root_def(tokens: &[String]) -> bool {
    matches!(tokens, [defs, _] if DEFS.contains(&defs.as_str()))
}

/// Inlines the references of `schema` (the root of one tool schema), as `mode` and `on_cycle`
/// say. With [`Mode::All`], root definitions no longer referenced afterwards are removed.
///
/// # Errors
///
/// [`Error::ExternalRef`], [`Error::Conversion`] (an anchor, a reference that does not
/// resolve or resolves to a non-schema, siblings that conflict with the target),
/// [`Error::RecursiveSchema`], [`Error::SchemaTooLarge`], [`Error::SchemaTooDeep`].
pub(crate) fn inline(
    schema: &mut Value,
    ctx: &mut Ctx<'_, '_>,
    mode: Mode,
    on_cycle: OnCycle,
) -> Result<(), Error> {
    inline_from(schema, None, ctx, mode, on_cycle)
}

/// [`inline`], with references resolved against `unchanged` when the caller has the schema as
/// it is now elsewhere (the tool's own schema, before any rewrite), so that it is not copied
/// first.
///
/// # Errors
///
/// As [`inline`].
pub(crate) fn inline_from(
    schema: &mut Value,
    unchanged: Option<&Value>,
    ctx: &mut Ctx<'_, '_>,
    mode: Mode,
    on_cycle: OnCycle,
) -> Result<(), Error> {
    let draft7 = schema
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(crate::validate::dialect::Dialect::from_uri)
        == Some(crate::validate::dialect::Dialect::Draft7);
    let mut inliner = Inliner {
        source: unchanged.map_or_else(|| Cow::Owned(schema.clone()), Cow::Borrowed),
        budget: ctx.options.inline_budget,
        produced: 0,
        stack: vec![(Vec::new(), None)],
        mode,
        on_cycle,
        draft7,
        ctx,
    };
    inliner.walk(schema, 0)?;
    if mode == Mode::All {
        // Definitions are walked only when something still refers to them.
        prune_defs(schema, inliner.ctx);
        if let Value::Object(root) = schema {
            for defs in DEFS {
                let Some(Value::Object(entries)) = root.get_mut(defs) else {
                    continue;
                };
                for (name, def) in entries.iter_mut() {
                    let a = inliner.ctx.enter(defs);
                    inliner.ctx.enter(name);
                    inliner
                        .stack
                        .push((vec![defs.to_owned(), name.clone()], None));
                    let result = inliner.walk(def, 2);
                    inliner.stack.pop();
                    inliner.ctx.leave(a);
                    result?;
                }
            }
        }
    }
    Ok(())
}

struct Inliner<'c, 'a, 't, 's> {
    ctx: &'c mut Ctx<'a, 't>,
    /// The schema as it was before inlining: references resolve against it.
    source: Cow<'s, Value>,
    budget: usize,
    produced: usize,
    /// The targets being inlined, each with the pointer of the `$ref` that started it (`None`
    /// for the root and for a root definition walked in place).
    stack: Vec<(Vec<String>, Option<String>)>,
    mode: Mode,
    on_cycle: OnCycle,
    draft7: bool,
}

impl Inliner<'_, '_, '_, '_> {
    fn walk(&mut self, node: &mut Value, depth: usize) -> Result<(), Error> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(Error::SchemaTooDeep {
                pointer: self.ctx.pointer(),
                limit: MAX_SCHEMA_DEPTH,
            });
        }
        let Value::Object(map) = node else {
            return Ok(());
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            let reference = reference.clone();
            let wanted = match self.mode {
                Mode::All => true,
                Mode::WithSiblings => map.len() > 1,
            };
            let tokens = match parse_reference(&reference) {
                Reference::Pointer(tokens) => tokens,
                Reference::Anchor(_) if !wanted => Vec::new(),
                Reference::External(_) if !wanted => Vec::new(),
                Reference::Anchor(anchor) => {
                    return Err(self.ctx.error(
                        Some("$ref"),
                        format!("the anchor reference #{anchor} cannot be inlined; refer to the definition by a JSON Pointer (#/$defs/...)"),
                    ));
                }
                Reference::External(external) => {
                    return Err(Error::ExternalRef {
                        reference: external.to_owned(),
                    });
                }
            };
            if wanted {
                if self.stack.iter().any(|(t, _)| *t == tokens) {
                    self.cycle(map, &reference, &tokens)?;
                } else {
                    return self.inline_one(node, &reference, tokens, depth);
                }
            }
        }
        let Value::Object(map) = node else {
            return Ok(());
        };
        let skip_defs = depth == 0 && self.mode == Mode::All;
        for_each_subschema(map, &mut |path: &[&str], sub: &mut Value| {
            let in_defs = path.first().is_some_and(|k| DEFS.contains(k));
            if skip_defs && in_defs {
                return Ok(());
            }
            let mark = self.ctx.mark();
            for token in path {
                self.ctx.enter(token);
            }
            // Walking a root definition in place: a reference back to it is recursive.
            let def = (depth == 0 && in_defs && path.len() == 2)
                .then(|| path.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>());
            if let Some(def) = &def {
                self.stack.push((def.clone(), None));
            }
            let result = self.walk(sub, depth + path.len());
            if def.is_some() {
                self.stack.pop();
            }
            self.ctx.leave(mark);
            result
        })
    }

    fn inline_one(
        &mut self,
        node: &mut Value,
        reference: &str,
        tokens: Vec<String>,
        depth: usize,
    ) -> Result<(), Error> {
        let Some(resolved) = resolve(&self.source, &tokens) else {
            return Err(self.ctx.error(
                Some("$ref"),
                format!("the reference {reference:?} does not resolve to anything in the schema"),
            ));
        };
        self.produced = self.produced.saturating_add(count_values(resolved));
        if self.produced > self.budget {
            return Err(Error::SchemaTooLarge {
                pointer: self.ctx.pointer_to("$ref"),
                limit: self.budget,
            });
        }
        let target = resolved.clone();
        let Value::Object(map) = node else {
            return Ok(());
        };
        let mut siblings = std::mem::take(map);
        siblings.remove("$ref");
        *node = match target {
            Value::Bool(true) => Value::Object(siblings),
            Value::Bool(false) => Value::Bool(false),
            Value::Object(target) => {
                Value::Object(self.merge_siblings(siblings, target, reference)?)
            }
            _ => {
                return Err(self.ctx.error(
                    Some("$ref"),
                    format!("the reference {reference:?} resolves to a value that is not a schema"),
                ));
            }
        };
        self.ctx.warn(
            Some("$ref"),
            "$ref",
            Action::Rewritten { exact: true },
            format!("local reference {reference} inlined"),
        );
        let pointer = self.ctx.pointer_to("$ref");
        self.stack.push((tokens, Some(pointer)));
        // A chain of references counts as nesting, so that it cannot exhaust the call stack.
        let result = self.walk(node, depth + 1);
        self.stack.pop();
        result
    }

    /// The referenced schema with the `$ref`'s siblings: annotations of the siblings win; in
    /// draft-07 other siblings were ignored by validators and are dropped.
    fn merge_siblings(
        &mut self,
        mut siblings: Map<String, Value>,
        target: Map<String, Value>,
        reference: &str,
    ) -> Result<Map<String, Value>, Error> {
        if self.draft7 {
            for keyword in assertion_keywords(&siblings) {
                self.ctx.drop_annotation(
                    &mut siblings,
                    keyword,
                    "ignored next to $ref in draft-07, so dropped when the reference is inlined",
                );
            }
        }
        // `merge` checks before it changes anything, so the check alone says whether the
        // siblings must give way, without copying either side.
        if let Err(conflict) = check_merge(&siblings, &target) {
            if !self.ctx.options.allow_widening {
                return Err(self.ctx.error(
                    Some(&conflict.keyword),
                    format!("cannot inline {reference}: this keyword next to the $ref conflicts with the schema it refers to (allow widening to drop it)"),
                ));
            }
            for keyword in assertion_keywords(&siblings) {
                siblings.remove(&keyword);
                self.ctx.warn(
                    Some(&keyword),
                    keyword.clone(),
                    Action::Dropped { widened: true },
                    format!("next to a $ref and conflicting with the schema {reference} refers to; dropped when inlining it"),
                );
            }
        }
        // Only annotations are left after a conflict, and annotations never conflict.
        merge(&mut siblings, target).map_err(|c| {
            self.ctx
                .error(Some(&c.keyword), "conflicts with the referenced schema")
        })?;
        Ok(siblings)
    }

    fn cycle(
        &mut self,
        map: &mut Map<String, Value>,
        reference: &str,
        tokens: &[String],
    ) -> Result<(), Error> {
        let keep = match self.on_cycle {
            OnCycle::Keep => true,
            OnCycle::KeepRootDefs => is_root_def(tokens),
            #[cfg(test)]
            OnCycle::Fail => false,
        };
        if keep {
            // The reference stays; keywords next to it cannot (the target takes `$ref` alone).
            let siblings: Vec<String> = map.keys().filter(|k| *k != "$ref").cloned().collect();
            for keyword in siblings {
                if is_annotation(&keyword) {
                    self.ctx.drop_annotation(
                        map,
                        keyword,
                        "next to a recursive $ref, which the target takes alone",
                    );
                } else if self.ctx.options.allow_widening {
                    map.remove(&keyword);
                    self.ctx.warn(
                        Some(&keyword),
                        keyword.clone(),
                        Action::Dropped { widened: true },
                        "next to a recursive $ref, which the target takes alone",
                    );
                } else {
                    return Err(self.ctx.error(
                        Some(&keyword),
                        format!("next to the recursive reference {reference}, which can be neither inlined nor kept with siblings (allow widening to drop them)"),
                    ));
                }
            }
            return Ok(());
        }
        if self.ctx.options.allow_widening {
            map.remove("$ref");
            self.ctx.warn(
                Some("$ref"),
                "$ref",
                Action::Dropped { widened: true },
                format!("recursive reference {reference} cannot be inlined; replaced by an unconstrained schema"),
            );
            return Ok(());
        }
        let pointer = self
            .stack
            .iter()
            .find(|(t, _)| t == tokens)
            .and_then(|(_, p)| p.clone())
            .unwrap_or_else(|| self.ctx.pointer_to("$ref"));
        Err(Error::RecursiveSchema {
            target: self.ctx.target.as_str(),
            pointer,
            reference: reference.to_owned(),
        })
    }
}

/// The keywords of `schema` that are not annotations, copied out so that the caller can remove
/// them.
fn assertion_keywords(schema: &Map<String, Value>) -> Vec<String> {
    schema
        .keys()
        .filter(|k| !is_annotation(k))
        .cloned()
        .collect()
}

/// Every `$ref` of a schema with its location (reference tokens from the root) and its target
/// tokens (local pointers only), in key order.
fn collect_refs(schema: &Value) -> Vec<(Vec<String>, Vec<String>, String)> {
    let mut out = Vec::new();
    // Depth first, keeping the path to the subschema at hand as borrowed tokens: a location is
    // spelled only for a subschema that holds a `$ref`. Each entry of the stack says how long
    // the path was above it, and the tokens that lead from there to it.
    let mut path: Vec<Token<'_>> = Vec::new();
    let mut stack: Vec<(usize, [Option<Token<'_>>; 2], &Value)> = vec![(0, [None, None], schema)];
    let mut subs = Vec::new();
    while let Some((above, tokens, value)) = stack.pop() {
        path.truncate(above);
        path.extend(tokens.into_iter().flatten());
        let Value::Object(map) = value else {
            continue;
        };
        if let Some(Value::String(reference)) = map.get("$ref")
            && let Reference::Pointer(tokens) = parse_reference(reference)
        {
            let location = path.iter().map(|token| token.spelled()).collect();
            out.push((location, tokens, reference.clone()));
        }
        each_subschema(map, &mut subs);
        let here = path.len();
        for (keyword, token, sub) in subs.drain(..).rev() {
            stack.push((here, [Some(Token::Name(keyword)), token], sub));
        }
    }
    out.sort();
    out
}

/// The first reference (in key order of its location) that lies on or leads to a cycle, with
/// the JSON Pointer of its `$ref` keyword relative to the schema root.
pub(crate) fn find_cycle(schema: &Value) -> Option<(String, String)> {
    let refs = collect_refs(schema);
    // Edges: a reference leads to every reference inside the subtree it points to.
    let edges: Vec<Vec<usize>> = refs
        .iter()
        .map(|(_, target, _)| {
            refs.iter()
                .enumerate()
                .filter(|(_, (location, _, _))| location.starts_with(target))
                .map(|(j, _)| j)
                .collect()
        })
        .collect();
    // Peel off references that lead nowhere recursive, until none is left to peel.
    let mut alive: BTreeSet<usize> = (0..refs.len()).collect();
    loop {
        let dead: Vec<usize> = alive
            .iter()
            .copied()
            .filter(|&i| {
                edges
                    .get(i)
                    .is_none_or(|out| !out.iter().any(|j| alive.contains(j)))
            })
            .collect();
        if dead.is_empty() {
            break;
        }
        for i in dead {
            alive.remove(&i);
        }
    }
    let first = *alive.iter().next()?;
    let (location, _, reference) = refs.get(first)?;
    let mut pointer = String::new();
    for token in location {
        pointer.push('/');
        pointer.push_str(&crate::pointer::escape_pointer_token(token));
    }
    pointer.push_str("/$ref");
    Some((pointer, reference.clone()))
}

/// After inlining every reference: removes the root definitions nothing refers to any more
/// (directly, or through definitions still referred to), with a warning each.
fn prune_defs(schema: &mut Value, ctx: &mut Ctx<'_, '_>) {
    // Without root definitions there is nothing to prune, and no reason to find the references.
    if !DEFS.iter().any(|defs| schema.get(defs).is_some()) {
        return;
    }
    let refs = collect_refs(schema);
    let in_defs =
        |location: &[String]| location.first().is_some_and(|k| DEFS.contains(&k.as_str()));
    let mut used: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut queue: Vec<Vec<String>> = refs
        .iter()
        .filter(|(location, _, _)| !in_defs(location))
        .map(|(_, target, _)| target.iter().take(2).cloned().collect())
        .collect();
    while let Some(def) = queue.pop() {
        if !used.insert(def.clone()) {
            continue;
        }
        for (location, target, _) in &refs {
            if location.starts_with(&def) {
                queue.push(target.iter().take(2).cloned().collect());
            }
        }
    }
    let Value::Object(root) = schema else {
        return;
    };
    for defs in DEFS {
        let Some(Value::Object(entries)) = root.get_mut(defs) else {
            continue;
        };
        let unused: Vec<String> = entries
            .keys()
            .filter(|name| !used.contains(&vec![defs.to_owned(), (*name).clone()]))
            .cloned()
            .collect();
        for name in unused {
            entries.remove(&name);
            let mark = ctx.enter(defs);
            ctx.warn(
                Some(&name),
                defs,
                Action::Rewritten { exact: true },
                "definition inlined wherever it was used, then removed",
            );
            ctx.leave(mark);
        }
        if entries.is_empty() {
            root.remove(defs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::context::{pointers_and_actions, run_transform};
    use crate::adapters::options::ConvertOptions;
    use crate::adapters::target::Target;
    use crate::adapters::warning::Warning;
    use serde_json::json;

    fn run(
        schema: Value,
        mode: Mode,
        on_cycle: OnCycle,
        options: &ConvertOptions,
    ) -> (Result<Value, Error>, Vec<Warning>) {
        run_transform(Target::Gemini, options, "/inputSchema", schema, |s, ctx| {
            inline(s, ctx, mode, on_cycle)
        })
    }

    #[test]
    fn parses_references() {
        assert_eq!(parse_reference("#"), Reference::Pointer(vec![]));
        assert_eq!(
            parse_reference("#/$defs/a~1b/c%20d~0"),
            Reference::Pointer(vec!["$defs".into(), "a/b".into(), "c d~".into()])
        );
        assert_eq!(parse_reference("#node"), Reference::Anchor("node"));
        assert_eq!(
            parse_reference("other.json#/x"),
            Reference::External("other.json#/x")
        );
        assert_eq!(parse_reference("#/%FF"), Reference::External("#/%FF"));
    }

    #[test]
    fn inlines_and_prunes() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/name", "description": "the a"}},
            "$defs": {"name": {"type": "string", "description": "a name"}, "unused": {"type": "null"}}
        });
        let (out, warnings) = run(schema, Mode::All, OnCycle::Fail, &ConvertOptions::default());
        assert_eq!(
            out.unwrap(),
            json!({"type": "object", "properties": {"a": {"type": "string", "description": "the a"}}})
        );
        let at = pointers_and_actions(&warnings);
        assert!(at.contains(&(
            "/inputSchema/properties/a/$ref",
            Action::Rewritten { exact: true }
        )));
        assert!(at.contains(&(
            "/inputSchema/$defs/unused",
            Action::Rewritten { exact: true }
        )));
    }

    #[test]
    fn billion_laughs_stops_at_the_budget() {
        let mut defs = Map::new();
        defs.insert("l0".into(), json!({"type": "string"}));
        for level in 1..40 {
            let below = format!("#/$defs/l{}", level - 1);
            defs.insert(
                format!("l{level}"),
                json!({"type": "array", "prefixItems": [{"$ref": below}, {"$ref": below}]}),
            );
        }
        let schema =
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/l39"}}, "$defs": defs});
        let options = ConvertOptions::default().with_inline_budget(10_000);
        let (out, _) = run(schema, Mode::All, OnCycle::Fail, &options);
        let Err(Error::SchemaTooLarge { limit, pointer }) = out else {
            panic!("expected SchemaTooLarge, got {out:?}")
        };
        assert_eq!(limit, 10_000);
        assert!(
            pointer.starts_with("/inputSchema/properties/x/"),
            "{pointer}"
        );
        assert!(pointer.ends_with("/$ref"), "{pointer}");
    }

    #[test]
    fn recursion_is_an_error_or_a_widening() {
        let schema = json!({
            "type": "object",
            "properties": {"list": {"$ref": "#/$defs/node"}},
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}
        });
        let (out, _) = run(
            schema.clone(),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default(),
        );
        let Err(Error::RecursiveSchema {
            reference, pointer, ..
        }) = out
        else {
            panic!("expected RecursiveSchema, got {out:?}")
        };
        assert_eq!(reference, "#/$defs/node");
        assert_eq!(pointer, "/inputSchema/properties/list/$ref");
        let (out, warnings) = run(
            schema.clone(),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default().with_allow_widening(true),
        );
        assert_eq!(
            out.unwrap(),
            json!({"type": "object", "properties": {"list": {"type": "object", "properties": {"next": {}}}}})
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.action == Action::Dropped { widened: true }
                    && w.pointer == "/inputSchema/properties/list/properties/next/$ref")
        );
        let (out, _) = run(
            schema,
            Mode::All,
            OnCycle::KeepRootDefs,
            &ConvertOptions::default(),
        );
        assert_eq!(
            out.unwrap(),
            json!({
                "type": "object",
                "properties": {"list": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
                "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}
            })
        );
    }

    #[test]
    fn siblings_only_mode_and_root_recursion() {
        let schema = json!({
            "type": "object",
            "properties": {
                "plain": {"$ref": "#/$defs/s"},
                "described": {"$ref": "#/$defs/s", "description": "x"},
                "child": {"$ref": "#", "description": "same again"}
            },
            "$defs": {"s": {"type": "string"}}
        });
        let (out, warnings) = run(
            schema,
            Mode::WithSiblings,
            OnCycle::Keep,
            &ConvertOptions::default(),
        );
        let out = out.unwrap();
        assert_eq!(out["properties"]["plain"], json!({"$ref": "#/$defs/s"}));
        assert_eq!(
            out["properties"]["described"],
            json!({"type": "string", "description": "x"})
        );
        assert_eq!(out["properties"]["child"], json!({"$ref": "#"}));
        assert!(
            warnings
                .iter()
                .any(|w| w.pointer == "/inputSchema/properties/child/description")
        );
    }

    #[test]
    fn draft7_siblings_are_ignored_and_conflicts_reported() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"$ref": "#/definitions/n", "minimum": 5}},
            "definitions": {"n": {"type": "integer", "minimum": 0}}
        });
        let (out, _) = run(
            schema.clone(),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default(),
        );
        assert_eq!(
            out.unwrap()["properties"]["a"],
            json!({"type": "integer", "minimum": 0})
        );
        let mut modern = schema;
        modern.as_object_mut().unwrap().remove("$schema");
        let (out, _) = run(modern, Mode::All, OnCycle::Fail, &ConvertOptions::default());
        assert!(
            matches!(out, Err(Error::Conversion { pointer, .. }) if pointer == "/inputSchema/properties/a/minimum")
        );
    }

    #[test]
    fn finds_cycles() {
        let acyclic = json!({"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {}}});
        assert_eq!(find_cycle(&acyclic), None);
        let cyclic = json!({"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"items": {"$ref": "#/$defs/x"}}}});
        assert_eq!(
            find_cycle(&cyclic),
            Some(("/$defs/x/items/$ref".into(), "#/$defs/x".into()))
        );
        let root = json!({"properties": {"child": {"$ref": "#"}}});
        assert_eq!(
            find_cycle(&root),
            Some(("/properties/child/$ref".into(), "#".into()))
        );
        // Through array items: the location of a reference spells their indexes.
        let through_items = json!({"properties": {"a": {"anyOf": [
            {"type": "null"},
            {"properties": {"next": {"$ref": "#/properties/a/anyOf/1"}}}
        ]}}});
        assert_eq!(
            find_cycle(&through_items),
            Some((
                "/properties/a/anyOf/1/properties/next/$ref".into(),
                "#/properties/a/anyOf/1".into()
            ))
        );
        let beside_items = json!({"properties": {"a": {"anyOf": [
            {"properties": {"next": {"$ref": "#/properties/a/anyOf/1"}}},
            {"type": "null"}
        ]}}});
        assert_eq!(find_cycle(&beside_items), None);
    }

    #[test]
    fn external_and_anchor_references_are_errors() {
        let (out, _) = run(
            json!({"properties": {"a": {"$ref": "https://x.test/s.json"}}}),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::ExternalRef { reference }) if reference == "https://x.test/s.json")
        );
        let (out, _) = run(
            json!({"properties": {"a": {"$ref": "#node"}}}),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default(),
        );
        assert!(matches!(out, Err(Error::Conversion { .. })));
        let (out, _) = run(
            json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
            Mode::All,
            OnCycle::Fail,
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::Conversion { reason, .. }) if reason.contains("does not resolve"))
        );
    }
}
