//! A schema with its references followed: how much validating against it can cost, checked
//! before `jsonschema` compiles it (see [`ValidationLimits`]'s "References").
//!
//! The schema becomes a graph of subschemas. Its edges are the applicators: in place (`allOf`,
//! `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, draft-07 `dependencies`,
//! `$ref`, `$dynamicRef`), which validate the same instance location, and consuming
//! (`properties`, `items`, `additionalProperties`, ...), which validate a part of it.
//! `$defs` holds subschemas without applying them. References are resolved as `jsonschema`
//! resolves them (the `referencing` crate, with a retriever that refuses every URI), and a
//! reference into a place the walk does not reach (an unknown keyword, a meta-schema) adds
//! that place to the graph. `$dynamicRef` gets an edge to its static target and to every
//! `$dynamicAnchor` of its name: an upper bound of any dynamic scope.
//!
//! Two figures come out, each over the strongly connected components of the graph, so that
//! cycles count once:
//! - the longest chain of subschemas at one place of the instance (in-place edges only);
//! - the size of the schema with every reference expanded, in JSON values.

use std::collections::HashMap;

use jsonschema::Draft;
use referencing::{Resolver, SPECIFICATIONS};
use serde_json::Value;

use crate::error::Error;
use crate::pointer::escape_pointer_token;
use crate::validate::limits::ValidationLimits;

/// What [`check`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The most subschemas validation applies at one place of the instance, following
    /// references (at least 1).
    pub(crate) chain: usize,
}

/// Follows every reference of `schema` and checks it against `limits`.
///
/// When the references cannot be resolved at all (an external reference, a root `$id` that is
/// not an absolute URI), `jsonschema` refuses the schema before compiling anything, so the
/// walk is skipped and the chain is taken as long as allowed.
///
/// # Errors
///
/// [`Error::SchemaTooDeep`] when a chain at one place is longer than `limits.max_depth`;
/// [`Error::SchemaTooLarge`] when the expanded references add more than
/// `limits.max_expansion` JSON values.
pub(crate) fn check(
    schema: &Value,
    draft: Draft,
    retriever: impl jsonschema::Retrieve + 'static,
    limits: &ValidationLimits,
) -> Result<Shape, Error> {
    let unresolved = Shape {
        chain: limits.max_depth,
    };
    let base = schema
        .get("$id")
        .and_then(Value::as_str)
        .and_then(|id| referencing::uri::from_str(id.trim_end_matches('#')).ok())
        .map_or_else(
            || referencing::uri::from_str("json-schema:///"),
            Ok::<_, referencing::Error>,
        );
    let Ok(base) = base else {
        return Ok(unresolved);
    };
    let Ok(registry) = SPECIFICATIONS
        .add(base.as_str(), draft.create_resource_ref(schema))
        .map(|builder| builder.retriever(retriever).draft(draft))
        .and_then(referencing::RegistryBuilder::prepare)
    else {
        return Ok(unresolved);
    };
    let graph = Graph::walk(schema, draft, registry.resolver(base));
    graph.check(limits)
}

/// How an edge applies its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    /// To the same instance location.
    InPlace,
    /// To a part of it.
    Consuming,
}

struct Node {
    /// JSON Pointer of the subschema; for one reached only through a reference, the pointer of
    /// that reference.
    pointer: String,
    /// JSON values of the subschema outside its child subschemas.
    own: usize,
    /// Whether the walk of the document reached it (not only a reference).
    in_document: bool,
    edges: Vec<(usize, Edge)>,
}

/// A reference waiting to be resolved.
struct Pending<'r> {
    from: usize,
    reference: &'r str,
    dynamic: bool,
    resolver: Resolver<'r>,
    pointer: String,
}

/// A subschema waiting to be scanned.
struct Visit<'r> {
    index: usize,
    value: &'r Value,
    draft: Draft,
    resolver: Resolver<'r>,
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
    /// Node index by the address of its subschema.
    index: HashMap<usize, usize>,
    /// Nodes with a `$dynamicAnchor`, by anchor name.
    dynamic_anchors: HashMap<String, Vec<usize>>,
}

/// Keywords whose value is one subschema, and how they apply it.
pub(crate) const ONE: &[(&str, Edge)] = &[
    ("not", Edge::InPlace),
    ("if", Edge::InPlace),
    ("then", Edge::InPlace),
    ("else", Edge::InPlace),
    ("items", Edge::Consuming),
    ("additionalItems", Edge::Consuming),
    ("additionalProperties", Edge::Consuming),
    ("propertyNames", Edge::Consuming),
    ("contains", Edge::Consuming),
    ("unevaluatedItems", Edge::Consuming),
    ("unevaluatedProperties", Edge::Consuming),
];
/// Keywords whose value is an array of subschemas.
pub(crate) const MANY: &[(&str, Edge)] = &[
    ("allOf", Edge::InPlace),
    ("anyOf", Edge::InPlace),
    ("oneOf", Edge::InPlace),
    ("prefixItems", Edge::Consuming),
    ("items", Edge::Consuming),
];
/// Keywords whose value is an object of subschemas; `None`: held, not applied.
pub(crate) const NAMED: &[(&str, Option<Edge>)] = &[
    ("properties", Some(Edge::Consuming)),
    ("patternProperties", Some(Edge::Consuming)),
    ("dependentSchemas", Some(Edge::InPlace)),
    ("dependencies", Some(Edge::InPlace)),
    ("$defs", None),
    ("definitions", None),
];

fn is_schema(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Bool(_))
}

/// The number of JSON values in `value`, without recursion.
fn json_size(value: &Value) -> usize {
    let mut count = 0usize;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        count += 1;
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    count
}

impl Graph {
    fn walk<'r>(schema: &'r Value, draft: Draft, resolver: Resolver<'r>) -> Self {
        let mut graph = Self::default();
        let mut visits = Vec::new();
        let mut pending = Vec::new();
        let mut dynamic = Vec::new();
        graph.intern(schema, String::new(), true, draft, &resolver, &mut visits);
        loop {
            while let Some(visit) = visits.pop() {
                graph.scan(visit, &mut visits, &mut pending);
            }
            let Some(reference) = pending.pop() else {
                break;
            };
            let Pending {
                from,
                reference,
                dynamic: is_dynamic,
                resolver,
                pointer,
            } = reference;
            if is_dynamic && let Some((_, anchor)) = reference.split_once('#') {
                dynamic.push((from, anchor.to_owned()));
            }
            // A reference `jsonschema` could not resolve makes it refuse the schema.
            let Ok(resolved) = resolver.lookup(reference) else {
                continue;
            };
            let (target, target_resolver, target_draft) = resolved.into_inner();
            let to = graph.intern(
                target,
                pointer,
                false,
                target_draft,
                &target_resolver,
                &mut visits,
            );
            graph.edge(from, to, Edge::InPlace);
        }
        for (from, anchor) in dynamic {
            for to in graph
                .dynamic_anchors
                .get(&anchor)
                .cloned()
                .unwrap_or_default()
            {
                graph.edge(from, to, Edge::InPlace);
            }
        }
        graph
    }

    fn edge(&mut self, from: usize, to: usize, edge: Edge) {
        if let Some(node) = self.nodes.get_mut(from) {
            node.edges.push((to, edge));
        }
    }

    /// The node of `value`, added (and queued for scanning) when new.
    fn intern<'r>(
        &mut self,
        value: &'r Value,
        pointer: String,
        in_document: bool,
        draft: Draft,
        resolver: &Resolver<'r>,
        visits: &mut Vec<Visit<'r>>,
    ) -> usize {
        let key = std::ptr::from_ref(value) as usize;
        if let Some(&index) = self.index.get(&key) {
            return index;
        }
        let index = self.nodes.len();
        self.index.insert(key, index);
        self.nodes.push(Node {
            pointer,
            own: 1,
            in_document,
            edges: Vec::new(),
        });
        visits.push(Visit {
            index,
            value,
            draft,
            resolver: resolver.clone(),
        });
        index
    }

    fn scan<'r>(
        &mut self,
        visit: Visit<'r>,
        visits: &mut Vec<Visit<'r>>,
        pending: &mut Vec<Pending<'r>>,
    ) {
        let Visit {
            index,
            value,
            draft,
            resolver,
        } = visit;
        let Value::Object(map) = value else {
            return;
        };
        let draft = draft.detect(value);
        let resolver = resolver
            .in_subresource(draft.create_resource_ref(value))
            .unwrap_or(resolver);
        let (pointer, in_document) = match self.nodes.get(index) {
            Some(node) => (node.pointer.clone(), node.in_document),
            None => return,
        };
        let mut own = 1usize;
        for (key, member) in map {
            let here = || format!("{pointer}/{}", escape_pointer_token(key));
            if let Some(&(_, edge)) = ONE.iter().find(|(name, _)| *name == key.as_str())
                && is_schema(member)
            {
                let child = self.intern(member, here(), in_document, draft, &resolver, visits);
                self.edge(index, child, edge);
                continue;
            }
            if let (Some(&(_, edge)), Value::Array(items)) =
                (MANY.iter().find(|(name, _)| *name == key.as_str()), member)
                && items.iter().all(is_schema)
            {
                own += 1;
                let base = here();
                for (position, item) in items.iter().enumerate() {
                    let child = self.intern(
                        item,
                        format!("{base}/{position}"),
                        in_document,
                        draft,
                        &resolver,
                        visits,
                    );
                    self.edge(index, child, edge);
                }
                continue;
            }
            if let (Some(&(_, edge)), Value::Object(members)) =
                (NAMED.iter().find(|(name, _)| *name == key.as_str()), member)
            {
                own += 1;
                let base = here();
                for (name, item) in members {
                    if !is_schema(item) {
                        // Draft-07 `dependencies` may name required properties instead.
                        own += json_size(item);
                        continue;
                    }
                    let child = self.intern(
                        item,
                        format!("{base}/{}", escape_pointer_token(name)),
                        in_document,
                        draft,
                        &resolver,
                        visits,
                    );
                    if let Some(edge) = edge {
                        self.edge(index, child, edge);
                    }
                }
                continue;
            }
            own += json_size(member);
            match (key.as_str(), member) {
                ("$ref", Value::String(reference)) | ("$dynamicRef", Value::String(reference)) => {
                    pending.push(Pending {
                        from: index,
                        reference,
                        dynamic: key == "$dynamicRef",
                        resolver: resolver.clone(),
                        pointer: here(),
                    });
                }
                ("$dynamicAnchor", Value::String(anchor)) => {
                    self.dynamic_anchors
                        .entry(anchor.clone())
                        .or_default()
                        .push(index);
                }
                _ => {}
            }
        }
        if let Some(node) = self.nodes.get_mut(index) {
            node.own = own;
        }
    }

    fn check(&self, limits: &ValidationLimits) -> Result<Shape, Error> {
        // The longest chain at one place: in-place edges only.
        let (component, components) = self.components(|edge| edge == Edge::InPlace);
        let mut sizes = vec![0usize; components];
        for &c in &component {
            if let Some(size) = sizes.get_mut(c) {
                *size += 1;
            }
        }
        let members = self.members(&component, components);
        let mut chain = vec![0usize; components];
        for c in 0..components {
            let mut longest = 0usize;
            for &node in members.get(c).map_or(&[][..], Vec::as_slice) {
                for &(to, edge) in self.nodes.get(node).map_or(&[][..], |n| n.edges.as_slice()) {
                    if let Some(&target) = component.get(to)
                        && edge == Edge::InPlace
                        && target != c
                    {
                        longest = longest.max(chain.get(target).copied().unwrap_or(0));
                    }
                }
            }
            if let Some(slot) = chain.get_mut(c) {
                *slot = sizes.get(c).copied().unwrap_or(0).saturating_add(longest);
            }
        }
        if let Some((c, &longest)) = chain.iter().enumerate().max_by_key(|&(_, &n)| n)
            && longest > limits.max_depth
        {
            return Err(Error::SchemaTooDeep {
                pointer: self.first_pointer(&members, c),
                limit: limits.max_depth,
            });
        }

        // The expanded size: every applied edge.
        let (component, components) = self.components(|_| true);
        let members = self.members(&component, components);
        let document: usize = self
            .nodes
            .iter()
            .filter(|node| node.in_document)
            .map(|node| node.own)
            .fold(0, usize::saturating_add);
        let budget = document.saturating_add(limits.max_expansion);
        let mut expanded = vec![0usize; components];
        for c in 0..components {
            let mut total = 0usize;
            for &node in members.get(c).map_or(&[][..], Vec::as_slice) {
                let Some(node) = self.nodes.get(node) else {
                    continue;
                };
                total = total.saturating_add(node.own);
                for &(to, _) in &node.edges {
                    if let Some(&target) = component.get(to)
                        && target != c
                    {
                        total = total.saturating_add(expanded.get(target).copied().unwrap_or(0));
                    }
                }
            }
            if total > budget {
                return Err(Error::SchemaTooLarge {
                    pointer: self.first_pointer(&members, c),
                    limit: limits.max_expansion,
                });
            }
            if let Some(slot) = expanded.get_mut(c) {
                *slot = total;
            }
        }
        Ok(Shape {
            chain: chain.into_iter().max().unwrap_or(1).max(1),
        })
    }

    /// The nodes of each component.
    fn members(&self, component: &[usize], components: usize) -> Vec<Vec<usize>> {
        let mut members = vec![Vec::new(); components];
        for (node, &c) in component.iter().enumerate() {
            if let Some(list) = members.get_mut(c) {
                list.push(node);
            }
        }
        members
    }

    /// The pointer of the first node (in discovery order) of component `c`.
    fn first_pointer(&self, members: &[Vec<usize>], c: usize) -> String {
        members
            .get(c)
            .and_then(|list| list.first())
            .and_then(|&node| self.nodes.get(node))
            .map(|node| node.pointer.clone())
            .unwrap_or_default()
    }

    /// The strongly connected components of the graph restricted to the edges `follow` keeps
    /// (Tarjan's algorithm, without recursion): each node's component, and how many there are.
    /// Components are numbered so that every edge between two of them goes to a lower number.
    fn components(&self, follow: impl Fn(Edge) -> bool) -> (Vec<usize>, usize) {
        const UNSEEN: usize = usize::MAX;
        let count = self.nodes.len();
        let mut order = vec![UNSEEN; count];
        let mut low = vec![0usize; count];
        let mut on_stack = vec![false; count];
        let mut component = vec![UNSEEN; count];
        let mut stack = Vec::new();
        let mut next_order = 0usize;
        let mut components = 0usize;
        // (node, index of the next edge to look at)
        let mut calls: Vec<(usize, usize)> = Vec::new();
        for start in 0..count {
            if order.get(start) != Some(&UNSEEN) {
                continue;
            }
            calls.push((start, 0));
            while let Some(&mut (node, ref mut next)) = calls.last_mut() {
                if *next == 0 && order.get(node) == Some(&UNSEEN) {
                    if let (Some(o), Some(l), Some(s)) = (
                        order.get_mut(node),
                        low.get_mut(node),
                        on_stack.get_mut(node),
                    ) {
                        *o = next_order;
                        *l = next_order;
                        *s = true;
                    }
                    next_order += 1;
                    stack.push(node);
                }
                let edges = self.nodes.get(node).map_or(&[][..], |n| n.edges.as_slice());
                if let Some(&(to, edge)) = edges.get(*next) {
                    *next += 1;
                    if !follow(edge) {
                        continue;
                    }
                    match order.get(to) {
                        Some(&UNSEEN) => calls.push((to, 0)),
                        Some(&to_order) if on_stack.get(to) == Some(&true) => {
                            if let Some(l) = low.get_mut(node) {
                                *l = (*l).min(to_order);
                            }
                        }
                        _ => {}
                    }
                    continue;
                }
                // Every edge of `node` is done.
                calls.pop();
                let node_low = low.get(node).copied().unwrap_or(0);
                if let Some(&(parent, _)) = calls.last()
                    && let Some(l) = low.get_mut(parent)
                {
                    *l = (*l).min(node_low);
                }
                if order.get(node) == Some(&node_low) {
                    while let Some(member) = stack.pop() {
                        if let (Some(s), Some(c)) =
                            (on_stack.get_mut(member), component.get_mut(member))
                        {
                            *s = false;
                            *c = components;
                        }
                        if member == node {
                            break;
                        }
                    }
                    components += 1;
                }
            }
        }
        (component, components)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    struct Refuse;
    impl jsonschema::Retrieve for Refuse {
        fn retrieve(
            &self,
            _: &jsonschema::Uri<String>,
        ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
            Err("refused".into())
        }
    }

    fn shape(schema: &Value) -> Result<Shape, Error> {
        check(
            schema,
            Draft::Draft202012,
            Refuse,
            &ValidationLimits::DEFAULT,
        )
    }

    fn chain_of_refs(length: usize, closing: Value) -> Value {
        let mut defs = serde_json::Map::new();
        for k in 0..length {
            defs.insert(
                format!("a{k}"),
                json!({"$ref": format!("#/$defs/a{}", k + 1)}),
            );
        }
        defs.insert(format!("a{length}"), closing);
        json!({"$defs": defs, "$ref": "#/$defs/a0"})
    }

    #[test]
    fn chains_count_in_place_subschemas() {
        assert_eq!(shape(&json!({"type": "object"})), Ok(Shape { chain: 1 }));
        assert_eq!(
            shape(&json!({"properties": {"a": {"allOf": [{"not": {}}]}}})),
            Ok(Shape { chain: 3 })
        );
        // root, the `$ref` targets a0..a10.
        assert_eq!(
            shape(&chain_of_refs(10, json!({"type": "integer"}))),
            Ok(Shape { chain: 12 })
        );
        // A cycle through `items` is consumed by the instance: its chain is short (the
        // `items` subschema, then the root it refers to).
        assert_eq!(
            shape(&json!({"type": "array", "items": {"$ref": "#"}})),
            Ok(Shape { chain: 2 })
        );
        // An in-place cycle counts each of its subschemas once.
        assert_eq!(
            shape(
                &json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}},
                          "$ref": "#/$defs/a"})
            ),
            Ok(Shape { chain: 4 })
        );
    }

    #[test]
    fn a_long_chain_of_references_is_too_deep() {
        // The pointer is where the longest chain starts: the root, or (in a cycle through
        // `items`) the `items` subschema that leads back to it.
        for (closing, pointer) in [
            (json!({"type": "integer"}), ""),
            (json!({"items": {"$ref": "#"}}), "/$defs/a1000/items"),
        ] {
            assert_eq!(
                shape(&chain_of_refs(1_000, closing)),
                Err(Error::SchemaTooDeep {
                    pointer: pointer.into(),
                    limit: 128
                })
            );
        }
    }

    #[test]
    fn a_billion_laughs_is_too_large() {
        let mut defs = serde_json::Map::new();
        for k in 0..30 {
            let next = format!("#/$defs/a{}", k + 1);
            defs.insert(
                format!("a{k}"),
                json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("a30".into(), json!({"type": "integer"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/a0"});
        let Err(Error::SchemaTooLarge { pointer, limit }) = shape(&schema) else {
            panic!("expected SchemaTooLarge");
        };
        assert_eq!(limit, 100_000);
        // Each level doubles, about 7 values per level: the budget is crossed near a15.
        assert!(pointer.starts_with("/$defs/a1"), "{pointer}");
    }

    #[test]
    fn references_into_unknown_keywords_are_followed() {
        let mut defs = serde_json::Map::new();
        for k in 0..30 {
            let next = format!("#/x-hidden/a{}", k + 1);
            defs.insert(
                format!("a{k}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("a30".into(), json!({}));
        let schema = json!({"x-hidden": defs, "$ref": "#/x-hidden/a0"});
        assert!(matches!(shape(&schema), Err(Error::SchemaTooLarge { .. })));
    }

    #[test]
    fn a_large_schema_without_references_is_not_an_expansion() {
        let properties: serde_json::Map<String, Value> = (0..100_000)
            .map(|i| (format!("p{i}"), json!({"type": "string", "maxLength": 3})))
            .collect();
        assert_eq!(
            shape(&json!({"type": "object", "properties": properties})),
            Ok(Shape { chain: 1 })
        );
    }
}
