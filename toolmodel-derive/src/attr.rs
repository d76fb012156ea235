//! Parsing `#[tool(...)]`: syntax only (which key, which kind of value), every problem
//! collected; the values' rules are checked in `valid.rs`.

use proc_macro2::TokenTree;
use syn::{
    Attribute, Ident, LitBool, LitStr, Path, Token, Type, bracketed, ext::IdentExt as _,
    parenthesized, parse::ParseStream,
};

use crate::{ctxt::Ctxt, suggest};

/// The keys of `#[tool(...)]`.
const KEYS: &[&str] = &[
    "name",
    "namespace",
    "version",
    "title",
    "description",
    "input",
    "output",
    "tags",
    "category",
    "scopes",
    "timeout",
    "annotations",
    "icon",
    "task_support",
    "local",
    "register",
    "crate",
    "schema",
];
/// The keys of `annotations(...)`.
const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
];
/// The keys of `icon(...)`.
const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];
/// The switches of `schema(...)`.
pub const SCHEMA_KEYS: &[&str] = &[
    "keep_schema_uri",
    "keep_title",
    "keep_description",
    "keep_refs",
    "keep_integer_widths",
    "keep_formats",
    "keep_open_objects",
];

/// Everything `#[tool(...)]` says, as written (with spans).
#[derive(Default)]
pub struct Attrs {
    pub name: Option<LitStr>,
    pub namespace: Option<LitStr>,
    pub version: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub input: Option<Keyed<Type>>,
    pub output: Option<Keyed<Type>>,
    pub tags: Option<Vec<LitStr>>,
    pub category: Option<LitStr>,
    pub scopes: Option<Vec<LitStr>>,
    pub timeout: Option<LitStr>,
    pub annotations: Option<Annotations>,
    pub icons: Vec<Keyed<IconAttr>>,
    pub task_support: Option<LitStr>,
    pub local: Option<LitStr>,
    pub register: Option<Ident>,
    pub krate: Option<Path>,
    /// `schema(...)` switches, in the order of [`SCHEMA_KEYS`].
    pub schema: [bool; 7],
}

/// A value with the key that introduced it (for errors about the entry as a whole).
pub struct Keyed<T> {
    pub key: Ident,
    pub value: T,
}

/// `annotations(...)`.
#[derive(Default)]
pub struct Annotations {
    pub title: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// One `icon(...)`.
#[derive(Default)]
pub struct IconAttr {
    pub src: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub sizes: Option<Vec<LitStr>>,
    pub theme: Option<LitStr>,
}

/// Parses every `#[tool(...)]` attribute among `attrs` (several are merged; a key may appear
/// once across them, except `icon`).
pub fn parse(cx: &mut Ctxt, attrs: &[Attribute]) -> Attrs {
    let mut out = Attrs::default();
    let mut seen = Seen::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("tool")) {
        let list = match attr.meta.require_list() {
            Ok(list) => list,
            Err(_) => {
                cx.error_spanned_by(
                    attr,
                    "expected `#[tool(...)]`, e.g. `#[tool(name = \"search\")]`",
                );
                continue;
            }
        };
        let result = list.parse_args_with(|input: ParseStream<'_>| {
            each_entry(cx, input, |cx, key, input| {
                let name = key.unraw().to_string();
                if name != "icon" && !seen.first(cx, &key, &name) {
                    return skip_value(input);
                }
                top_level_entry(&mut out, cx, key, &name, input)
            });
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    out
}

fn top_level_entry(
    out: &mut Attrs,
    cx: &mut Ctxt,
    key: Ident,
    name: &str,
    input: ParseStream<'_>,
) -> syn::Result<()> {
    match name {
        "name" => out.name = Some(string_value(&key, input)?),
        "namespace" => out.namespace = Some(string_value(&key, input)?),
        "version" => out.version = Some(string_value(&key, input)?),
        "title" => out.title = Some(string_value(&key, input)?),
        "description" => out.description = Some(string_value(&key, input)?),
        "task_support" => out.task_support = Some(string_value(&key, input)?),
        "category" => out.category = Some(string_value(&key, input)?),
        "timeout" => out.timeout = Some(string_value(&key, input)?),
        "local" => out.local = Some(string_value(&key, input)?),
        "input" | "output" => {
            let value = type_value(&key, input)?;
            let slot = if name == "input" {
                &mut out.input
            } else {
                &mut out.output
            };
            *slot = Some(Keyed { key, value });
        }
        "crate" => {
            let text = string_value(&key, input)?;
            out.krate = Some(text.parse::<Path>().map_err(|_| {
                syn::Error::new(
                    text.span(),
                    "expected a path to the `toolmodel` crate, e.g. `crate = \"my_toolmodel\"`",
                )
            })?);
        }
        "register" => {
            no_value(&key, input)?;
            out.register = Some(key);
        }
        "tags" => {
            let content = list_value(&key, input, "tags(\"search\", \"web\")")?;
            out.tags = Some(string_items(cx, &content));
        }
        "scopes" => {
            let content = list_value(&key, input, "scopes(\"notes:read\", \"notes:write\")")?;
            out.scopes = Some(string_items(cx, &content));
        }
        "annotations" => {
            let content = list_value(
                &key,
                input,
                "annotations(read_only, destructive = false, title = \"...\")",
            )?;
            let mut annotations = Annotations::default();
            each_unique_entry(cx, &content, |_, key, name, input| {
                match name {
                    "title" => annotations.title = Some(string_value(&key, input)?),
                    "read_only" => annotations.read_only = Some(flag_value(input)?),
                    "destructive" => annotations.destructive = Some(flag_value(input)?),
                    "idempotent" => annotations.idempotent = Some(flag_value(input)?),
                    "open_world" => annotations.open_world = Some(flag_value(input)?),
                    _ => return Err(unknown_key(&key, name, ANNOTATION_KEYS, "annotations")),
                }
                Ok(())
            });
            out.annotations = Some(annotations);
        }
        "icon" => {
            let content = list_value(
                &key,
                input,
                "icon(src = \"https://...\", mime_type = \"image/png\", sizes = [\"48x48\"], theme = \"light\")",
            )?;
            let mut icon = IconAttr::default();
            each_unique_entry(cx, &content, |cx, key, name, input| {
                match name {
                    "src" => icon.src = Some(string_value(&key, input)?),
                    "mime_type" => icon.mime_type = Some(string_value(&key, input)?),
                    "theme" => icon.theme = Some(string_value(&key, input)?),
                    "sizes" => {
                        equals(&key, input, "sizes = [\"48x48\", \"any\"]")?;
                        let content;
                        bracketed!(content in input);
                        icon.sizes = Some(string_items(cx, &content));
                    }
                    _ => return Err(unknown_key(&key, name, ICON_KEYS, "icon")),
                }
                Ok(())
            });
            out.icons.push(Keyed { key, value: icon });
        }
        "schema" => {
            let content = list_value(&key, input, "schema(keep_refs, keep_formats)")?;
            each_unique_entry(cx, &content, |_, key, name, input| {
                let Some(index) = SCHEMA_KEYS.iter().position(|k| *k == name) else {
                    return Err(unknown_key(&key, name, SCHEMA_KEYS, "schema"));
                };
                let value = flag_value(input)?;
                if let Some(slot) = out.schema.get_mut(index) {
                    *slot = value;
                }
                Ok(())
            });
        }
        _ => return Err(unknown_key(&key, name, KEYS, "tool")),
    }
    Ok(())
}

/// The keys already given at one level, to report a repeated one.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    /// `true` the first time a key is given; reports it and returns `false` after that.
    fn first(&mut self, cx: &mut Ctxt, key: &Ident, name: &str) -> bool {
        if self.0.iter().any(|seen| seen == name) {
            cx.error_spanned_by(key, format!("duplicate key `{name}`: give it once"));
            false
        } else {
            self.0.push(name.to_owned());
            true
        }
    }
}

/// Runs `entry` on each `key ...` of a comma-separated list; see [`each_item`].
fn each_entry(
    cx: &mut Ctxt,
    input: ParseStream<'_>,
    mut entry: impl FnMut(&mut Ctxt, Ident, ParseStream<'_>) -> syn::Result<()>,
) {
    each_item(cx, input, |cx, input| {
        let key = input.call(Ident::parse_any)?;
        entry(cx, key, input)
    });
}

/// [`each_entry`] for a list whose keys may each be given once: a repeated key is reported
/// (spanned on the repeat) and its value skipped; `entry` gets the key and its unraw name.
fn each_unique_entry(
    cx: &mut Ctxt,
    input: ParseStream<'_>,
    mut entry: impl FnMut(&mut Ctxt, Ident, &str, ParseStream<'_>) -> syn::Result<()>,
) {
    let mut seen = Seen::default();
    each_entry(cx, input, |cx, key, input| {
        let name = key.unraw().to_string();
        if !seen.first(cx, &key, &name) {
            return skip_value(input);
        }
        entry(cx, key, &name, input)
    });
}

/// The string literals of a comma-separated list; see [`each_item`].
fn string_items(cx: &mut Ctxt, input: ParseStream<'_>) -> Vec<LitStr> {
    let mut out = Vec::new();
    each_item(cx, input, |_, input| {
        if input.peek(LitStr) {
            out.push(input.parse()?);
            Ok(())
        } else {
            Err(input.error("expected a string literal"))
        }
    });
    out
}

/// Runs `item` on each item of a comma-separated list. An item that fails is reported and
/// skipped up to the next comma, so that the others are still read; the list is always read
/// to its end (a partly read group would make `syn` report a second, vaguer error).
fn each_item(
    cx: &mut Ctxt,
    input: ParseStream<'_>,
    mut item: impl FnMut(&mut Ctxt, ParseStream<'_>) -> syn::Result<()>,
) {
    while !input.is_empty() {
        let result = item(cx, input).and_then(|()| {
            if input.is_empty() || input.peek(Token![,]) {
                Ok(())
            } else {
                Err(input.error("expected `,` between entries"))
            }
        });
        if let Err(err) = result {
            cx.syn_error(err);
            let _ = skip_value(input);
        }
        if input.peek(Token![,]) {
            let _ = input.parse::<Token![,]>();
        }
    }
}

/// Skips the rest of an entry, up to (not including) the next top-level comma.
fn skip_value(input: ParseStream<'_>) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

fn unknown_key(key: &Ident, name: &str, known: &[&str], within: &str) -> syn::Error {
    let message = match suggest::closest(name, known) {
        Some(close) => format!("unknown key `{name}` in `{within}(...)`; did you mean `{close}`?"),
        None => format!(
            "unknown key `{name}` in `{within}(...)`; the keys are: {}",
            known.join(", ")
        ),
    };
    syn::Error::new(key.span(), message)
}

fn equals(key: &Ident, input: ParseStream<'_>, example: &str) -> syn::Result<()> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>().map(drop)
    } else {
        Err(syn::Error::new(key.span(), format!("expected `{example}`")))
    }
}

fn string_value(key: &Ident, input: ParseStream<'_>) -> syn::Result<LitStr> {
    let example = format!("{} = \"...\"", key.unraw());
    equals(key, input, &example)?;
    if input.peek(LitStr) {
        input.parse()
    } else {
        Err(input.error(format!("expected a string literal: `{example}`")))
    }
}

fn type_value(key: &Ident, input: ParseStream<'_>) -> syn::Result<Type> {
    let example = format!("{} = TypeName", key.unraw());
    equals(key, input, &example)?;
    if input.peek(LitStr) {
        let text: LitStr = input.parse()?;
        return Err(syn::Error::new(
            text.span(),
            format!("write the type without quotes: `{example}`"),
        ));
    }
    input.parse()
}

/// A flag: `key` alone (true) or `key = true|false`.
fn flag_value(input: ParseStream<'_>) -> syn::Result<bool> {
    if !input.peek(Token![=]) {
        return Ok(true);
    }
    input.parse::<Token![=]>()?;
    if input.peek(LitBool) {
        Ok(input.parse::<LitBool>()?.value)
    } else {
        Err(input.error("expected `true` or `false`"))
    }
}

fn no_value(key: &Ident, input: ParseStream<'_>) -> syn::Result<()> {
    if input.is_empty() || input.peek(Token![,]) {
        Ok(())
    } else {
        Err(syn::Error::new(
            input.span(),
            format!("`{}` takes no value", key.unraw()),
        ))
    }
}

/// The parenthesized list after `key`.
fn list_value<'a>(
    key: &Ident,
    input: ParseStream<'a>,
    example: &str,
) -> syn::Result<syn::parse::ParseBuffer<'a>> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(key.span(), format!("expected `{example}`")));
    }
    let content;
    parenthesized!(content in input);
    Ok(content)
}
