//! The compile-time checks: the shape of the type, generics, and every value of `#[tool(...)]`
//! by the runtime's rules (`rules.rs`). Each problem is reported on the user's token, and the
//! result is always a best-effort [`Checked`] tool, so that the fallback impl can name the
//! input and output types the user meant.

use heck::ToSnakeCase as _;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{GenericParam, Generics, Ident, LitStr, Type, ext::IdentExt as _, spanned::Spanned as _};

use crate::{
    ast::{Body, Input},
    attr::{Annotations, Keyed},
    ctxt::Ctxt,
    rules::{self, TagProblem},
};

/// A tool ready to expand.
pub struct Checked<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    /// The path to `toolmodel`.
    pub krate: TokenStream,
    pub input: InputKind,
    /// The output type, when declared and usable.
    pub output: Option<TokenStream>,
    pub name: String,
    pub namespace: Option<String>,
    pub id: String,
    pub version: Option<String>,
    pub title: Option<String>,
    /// The description: `description = "..."`, else the doc comment.
    pub description: Option<TokenStream>,
    pub tags: Vec<String>,
    pub category: Option<String>,
    pub scopes: Vec<String>,
    /// The timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    pub annotations: Option<Annotations>,
    pub icons: Vec<Icon>,
    pub task_support: Option<Ident>,
    pub local: String,
    pub register: Option<Span>,
    /// A unit struct: `register` serves the value itself, no `Default` needed.
    pub unit: bool,
    pub schema: [bool; 7],
    /// `(property name, x-mcp-header)` of each `#[tool(header = "...")]` field.
    pub headers: Vec<(String, String)>,
}

/// Where the arguments come from.
pub enum InputKind {
    /// The struct itself (named fields).
    This,
    /// `input = T`.
    Type(TokenStream),
    /// A unit struct with no `input`: no parameters.
    None,
    /// Unknown, because of an error already reported.
    Broken,
}

/// One checked icon.
pub struct Icon {
    pub src: String,
    pub mime_type: Option<String>,
    pub sizes: Option<Vec<String>>,
    pub theme: Option<Ident>,
}

/// Checks the input, reporting every problem to `cx`.
pub fn check<'a>(cx: &mut Ctxt, mut input: Input<'a>) -> Checked<'a> {
    let mut attrs = std::mem::take(&mut input.attrs);
    let input = &input;
    let krate = match attrs.krate.take() {
        Some(path) => path.into_token_stream(),
        None => quote!(::toolmodel),
    };

    let input_kind = check_shape(cx, input.ident, &input.body, attrs.input.as_ref());
    let input_kind = match input_kind {
        InputKind::Type(tokens) => {
            match own_type(cx, tokens, "input", input.ident, input.generics) {
                Some(tokens) => InputKind::Type(tokens),
                None => InputKind::Broken,
            }
        }
        other => other,
    };
    let output = attrs.output.as_ref().and_then(|output| {
        own_type(
            cx,
            output.value.to_token_stream(),
            "output",
            input.ident,
            input.generics,
        )
    });
    check_generics(cx, input, &input_kind, attrs.register.as_ref());

    let name = match &attrs.name {
        Some(name) => {
            check_name(cx, name, "name");
            name.value()
        }
        None => {
            let name = input.ident.unraw().to_string().to_snake_case();
            let problems = rules::name_problems(&name);
            if !problems.is_empty() {
                cx.error_spanned_by(
                    input.ident,
                    format!(
                        "the default tool name {name:?} (the struct name in snake_case) is not a valid MCP tool name: {}; set one with `#[tool(name = \"...\")]`",
                        problems.join("; ")
                    ),
                );
            }
            name
        }
    };
    let namespace = attrs.namespace.as_ref().map(|namespace| {
        check_name(cx, namespace, "namespace");
        namespace.value()
    });
    let id = match &namespace {
        Some(namespace) => format!("{namespace}:{name}"),
        None => name.clone(),
    };

    let version = attrs.version.as_ref().map(|version| {
        checked_text(cx, version, |text| {
            rules::version_problem(text).map(|reason| format!(
                "version {text:?} is not a semantic version ({reason}); write MAJOR.MINOR.PATCH, e.g. \"1.0.0\" or \"v1.0.0\""
            ))
        })
    });

    let tags = attrs
        .tags
        .as_ref()
        .map(|tags| check_tags(cx, tags))
        .unwrap_or_default();
    let category = attrs.category.as_ref().map(|category| {
        checked_text(cx, category, |text| {
            rules::category_problem(text).map(|problem| format!("category {text:?} {problem}"))
        })
    });
    let scopes = attrs
        .scopes
        .as_ref()
        .map(|scopes| check_scopes(cx, scopes))
        .unwrap_or_default();
    let timeout_ms =
        attrs
            .timeout
            .as_ref()
            .and_then(|timeout| match rules::parse_timeout(&timeout.value()) {
                Ok(millis) => Some(millis),
                Err(message) => {
                    cx.error_spanned_by(timeout, message);
                    None
                }
            });
    let icons = attrs
        .icons
        .iter()
        .filter_map(|icon| check_icon(cx, icon))
        .collect();

    let task_support = attrs.task_support.as_ref().and_then(|value| {
        let text = value.value();
        match text.as_str() {
            "forbidden" => Some(Ident::new("Forbidden", value.span())),
            "optional" => Some(Ident::new("Optional", value.span())),
            "required" => Some(Ident::new("Required", value.span())),
            _ => {
                cx.error_spanned_by(
                    value,
                    format!(
                        "task_support {text:?} is not one of {}",
                        quoted_list(rules::TASK_SUPPORT)
                    ),
                );
                None
            }
        }
    });

    let local = match &attrs.local {
        Some(local) => {
            let text = local.value();
            if !rules::backend_name_allowed(&text) {
                cx.error_spanned_by(
                    local,
                    "the local handler name is empty; remove `local` to use the tool ID",
                );
            }
            text
        }
        None => id.clone(),
    };

    let description = match &attrs.description {
        Some(description) => Some(description.to_token_stream()),
        None => input.doc.clone(),
    };

    let headers = check_headers(cx, input, &input_kind);
    Checked {
        ident: input.ident,
        generics: input.generics,
        krate,
        input: input_kind,
        output,
        name,
        namespace,
        id,
        version,
        title: attrs.title.as_ref().map(LitStr::value),
        description,
        tags,
        category,
        scopes,
        timeout_ms,
        annotations: attrs.annotations.take(),
        icons,
        task_support,
        local,
        register: attrs.register.as_ref().map(Ident::span),
        unit: matches!(input.body, Body::Unit),
        schema: attrs.schema,
        headers,
    }
}

/// The `#[tool(header = "...")]` fields: each name by the runtime's rules, unique
/// case-insensitively, on a field of the arguments struct that is a property of its own and
/// not a floating-point number (MCP 2026-07-28, `x-mcp-header`). Whether the property's schema
/// is an integer, string or boolean is checked when the tool is built.
fn check_headers(cx: &mut Ctxt, input: &Input<'_>, kind: &InputKind) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for field in &input.headers {
        let header = field.header.value();
        if !matches!(kind, InputKind::This) {
            cx.error_spanned_by(
                &field.header,
                "`header` marks a field of the tool's arguments, and this struct is a handler (its fields are no arguments): on the input type's field, write `#[schemars(extend(\"x-mcp-header\" = \"Name\"))]`",
            );
            continue;
        }
        if let Some(problem) = rules::header_problem(&header) {
            cx.error_spanned_by(&field.header, format!("x-mcp-header {header:?} {problem}"));
            continue;
        }
        if let Some(span) = field.not_a_property {
            cx.error_at(
                span,
                "a field with `header` must be a property of its own: not `skip`, `skip_deserializing` or `flatten`",
            );
            continue;
        }
        if is_float(field.ty) {
            cx.error_spanned_by(
                field.ty,
                "an x-mcp-header cannot be on a number: MCP 2026-07-28 allows it on integer, string and boolean properties only",
            );
            continue;
        }
        let lower = header.to_ascii_lowercase();
        if seen.contains(&lower) {
            cx.error_spanned_by(
                &field.header,
                format!("x-mcp-header {header:?} is used twice (header names are compared case-insensitively)"),
            );
            continue;
        }
        seen.push(lower);
        let property = field.rename.clone().unwrap_or_else(|| {
            rename(
                &field.ident.unraw().to_string(),
                input.rename_all.as_deref(),
            )
        });
        out.push((property, header));
    }
    out
}

/// A field name under serde's `rename_all` rule.
fn rename(field: &str, rule: Option<&str>) -> String {
    use heck::{
        ToKebabCase as _, ToLowerCamelCase as _, ToShoutyKebabCase as _, ToShoutySnakeCase as _,
        ToUpperCamelCase as _,
    };
    match rule {
        Some("lowercase") => field.to_lowercase(),
        Some("UPPERCASE") => field.to_uppercase(),
        Some("PascalCase") => field.to_upper_camel_case(),
        Some("camelCase") => field.to_lower_camel_case(),
        Some("SCREAMING_SNAKE_CASE") => field.to_shouty_snake_case(),
        Some("kebab-case") => field.to_kebab_case(),
        Some("SCREAMING-KEBAB-CASE") => field.to_shouty_kebab_case(),
        _ => field.to_owned(),
    }
}

/// `f32`, `f64`, or an `Option` of one.
fn is_float(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if last.ident == "f32" || last.ident == "f64" {
        return true;
    }
    if last.ident == "Option"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return is_float(inner);
    }
    false
}

/// Which of the three accepted shapes the type is; anything else is an error saying what to
/// write instead.
fn check_shape(
    cx: &mut Ctxt,
    ident: &Ident,
    body: &Body,
    input: Option<&Keyed<Type>>,
) -> InputKind {
    match (body, input) {
        (Body::Enum(span), _) => {
            cx.error_at(
                *span,
                "`#[derive(Tool)]` needs a struct: a tool's arguments are one JSON object, and an enum is not one. Write a struct with named fields (an enum can be one of them), or a handler struct with `#[tool(input = Args)]`",
            );
            InputKind::Broken
        }
        (Body::Union(span), _) => {
            cx.error_at(
                *span,
                "`#[derive(Tool)]` needs a struct: a union cannot be tool arguments. Write a struct with named fields, or a handler struct with `#[tool(input = Args)]`",
            );
            InputKind::Broken
        }
        (_, Some(input)) if is_own_name(&input.value, ident) => {
            cx.error_spanned_by(
                &input.value,
                format!(
                    "`{ident}` is its own input: remove `input = ...` (a struct with named fields is the tool's arguments), or put `#[tool(input = {ident})]` on a separate handler struct"
                ),
            );
            InputKind::This
        }
        (_, Some(input)) => InputKind::Type(input.value.to_token_stream()),
        (Body::Named, None) => InputKind::This,
        (Body::Unit, None) => InputKind::None,
        (Body::Tuple(span), None) => {
            cx.error_at(
                *span,
                format!(
                    "a tuple struct cannot be a tool's arguments, which are a JSON object with named properties: name the fields (`struct {ident} {{ query: String }}`), or make `{ident}` a handler with `#[tool(input = Args)]`"
                ),
            );
            InputKind::Broken
        }
    }
}

/// `Self` or the struct's own name.
fn is_own_name(ty: &Type, ident: &Ident) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path.is_ident(ident)
                || path.path.is_ident("Self")
                || (path.path.segments.len() == 1
                    && path
                        .path
                        .segments
                        .first()
                        .is_some_and(|segment| segment.ident == "Self"))
        }
        _ => false,
    }
}

/// The tokens of an `input`/`output` type as the generated static can use them: `Self`
/// replaced by the struct's name; `None` (after an error) when it names a generic parameter
/// of the struct.
fn own_type(
    cx: &mut Ctxt,
    tokens: TokenStream,
    role: &str,
    ident: &Ident,
    generics: &Generics,
) -> Option<TokenStream> {
    let params: Vec<String> = generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Type(param) => param.ident.to_string(),
            GenericParam::Lifetime(param) => param.lifetime.ident.to_string(),
            GenericParam::Const(param) => param.ident.to_string(),
        })
        .collect();
    if let Some(found) = find_param(tokens.clone(), &params, !generics.params.is_empty()) {
        cx.error_at(
            found.span(),
            format!(
                "the `{role}` type cannot use `{found}`, a generic parameter of `{ident}`: a tool's schemas are built once per tool, whatever the parameters are; name a concrete type"
            ),
        );
        return None;
    }
    Some(replace_self(tokens, ident))
}

/// The first token naming one of `params` (or `Self`, when the struct is generic).
fn find_param(tokens: TokenStream, params: &[String], generic: bool) -> Option<Ident> {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident)
                if params.iter().any(|param| ident == param) || (generic && ident == "Self") =>
            {
                return Some(ident);
            }
            TokenTree::Group(group) => {
                if let Some(found) = find_param(group.stream(), params, generic) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

fn replace_self(tokens: TokenStream, ident: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(found) if found == "Self" => {
                TokenTree::Ident(Ident::new(&ident.to_string(), found.span()))
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    proc_macro2::Group::new(group.delimiter(), replace_self(group.stream(), ident));
                replaced.set_span(group.span());
                TokenTree::Group(replaced)
            }
            other => other,
        })
        .collect()
}

/// Generics: a handler may have them (its fields are not part of any schema); arguments and
/// registered tools may not.
fn check_generics(cx: &mut Ctxt, input: &Input<'_>, kind: &InputKind, register: Option<&Ident>) {
    if input.generics.params.is_empty() {
        return;
    }
    let span = input.generics.span();
    if matches!(kind, InputKind::This) {
        cx.error_at(
            span,
            format!(
                "a tool's arguments cannot be generic: the input schema is one concrete type. Remove the parameters, or make `{}` a handler with `#[tool(input = Args)]` naming a concrete arguments type",
                input.ident
            ),
        );
    }
    if let Some(register) = register {
        cx.error_spanned_by(
            register,
            format!(
                "a generic tool cannot be registered: `register` needs one concrete type, and `{}` has parameters. Register a concrete (non-generic) struct instead",
                input.ident
            ),
        );
    }
}

fn check_name(cx: &mut Ctxt, value: &LitStr, what: &str) {
    let text = value.value();
    let problems = rules::name_problems(&text);
    if !problems.is_empty() {
        cx.error_spanned_by(
            value,
            format!(
                "{what} {text:?} is not a valid MCP tool {what}: {} (1 to {} characters of A-Z, a-z, 0-9, `_`, `-` and `.`)",
                problems.join("; "),
                rules::MAX_NAME_LEN
            ),
        );
    }
}

/// Each tag in normal form, once, at most `MAX_TAGS` of them; the error names the normal form
/// to write.
fn check_tags(cx: &mut Ctxt, tags: &[LitStr]) -> Vec<String> {
    let texts: Vec<String> = tags.iter().map(LitStr::value).collect();
    for (index, problem) in rules::tag_problems(&texts) {
        let (Some(tag), Some(text)) = (tags.get(index), texts.get(index)) else {
            continue;
        };
        let message = match problem {
            TagProblem::Empty => format!(
                "tag {text:?} is empty in normal form (a tag keeps only a-z, 0-9, `-`, `_` and `.`); remove it"
            ),
            TagProblem::NotNormal(normal) => {
                format!("tag {text:?} is not in normal form; write {normal:?}")
            }
            TagProblem::Duplicate => format!("duplicate tag {text:?}; remove it"),
            TagProblem::TooMany => {
                format!(
                    "a tool has at most {} tags; remove this one",
                    rules::MAX_TAGS
                )
            }
        };
        cx.error_spanned_by(tag, message);
    }
    texts
}

/// The text of a string literal, with the error `problem` finds in it (if any) reported on it.
fn checked_text(
    cx: &mut Ctxt,
    lit: &LitStr,
    problem: impl FnOnce(&str) -> Option<String>,
) -> String {
    let text = lit.value();
    if let Some(message) = problem(&text) {
        cx.error_spanned_by(lit, message);
    }
    text
}

/// Each required scope an RFC 6749 §3.3 `scope-token`, none repeated.
fn check_scopes(cx: &mut Ctxt, scopes: &[LitStr]) -> Vec<String> {
    let texts: Vec<String> = scopes.iter().map(LitStr::value).collect();
    for (index, (scope, text)) in scopes.iter().zip(&texts).enumerate() {
        if let Some(problem) = rules::scope_problem(text) {
            cx.error_spanned_by(scope, format!("required scope {text:?} {problem}"));
        } else if texts.iter().take(index).any(|earlier| earlier == text) {
            cx.error_spanned_by(scope, format!("duplicate scope {text:?}; remove it"));
        }
    }
    texts
}

fn check_icon(cx: &mut Ctxt, icon: &Keyed<crate::attr::IconAttr>) -> Option<Icon> {
    let attr = &icon.value;
    let Some(src) = &attr.src else {
        cx.error_spanned_by(
            &icon.key,
            "an icon needs a `src`: `icon(src = \"https://example.com/icon.png\")`",
        );
        return None;
    };
    let text = src.value();
    if !rules::icon_src_allowed(&text) {
        cx.error_spanned_by(
            src,
            format!(
                "icon src {:?} does not use one of the schemes {} (MCP: clients must reject others, such as `javascript:` or `file:`)",
                truncate(&text, 80),
                rules::ICON_SCHEMES
                    .iter()
                    .map(|scheme| format!("`{scheme}:`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    let theme = attr.theme.as_ref().and_then(|theme| {
        let value = theme.value();
        match value.as_str() {
            "light" => Some(Ident::new("Light", theme.span())),
            "dark" => Some(Ident::new("Dark", theme.span())),
            _ => {
                cx.error_spanned_by(
                    theme,
                    format!(
                        "icon theme {value:?} is not one of {}",
                        quoted_list(rules::THEMES)
                    ),
                );
                None
            }
        }
    });
    Some(Icon {
        src: text,
        mime_type: attr.mime_type.as_ref().map(LitStr::value),
        sizes: attr
            .sizes
            .as_ref()
            .map(|sizes| sizes.iter().map(LitStr::value).collect()),
        theme,
    })
}

fn quoted_list(values: &[&str]) -> String {
    values
        .iter()
        .map(|value| format!("{value:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(text)),
        None => text.to_owned(),
    }
}
