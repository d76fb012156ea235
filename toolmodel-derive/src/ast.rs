//! The deriving type, read from `syn`: its name, generics, doc comment, fields and
//! `#[tool(...)]` attributes.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{
    Data, DeriveInput, Expr, ExprLit, Fields, Generics, Ident, Lit, LitStr, Meta, Type,
    ext::IdentExt as _,
};

use crate::{attr::Attrs, ctxt::Ctxt};

/// The deriving type.
pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: Attrs,
    /// The doc comment, as a `concat!` of its lines (so that `#[doc = include_str!(...)]`
    /// works too), or `None` when there is none.
    pub doc: Option<TokenStream>,
    pub body: Body,
    /// The named fields with a `#[tool(header = "...")]`.
    pub headers: Vec<HeaderField<'a>>,
    /// `#[serde(rename_all = "...")]` of the struct, when given.
    pub rename_all: Option<String>,
}

/// A named field with `#[tool(header = "...")]`: its argument is mirrored into an HTTP header
/// (MCP 2026-07-28 `x-mcp-header`).
pub struct HeaderField<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The header name as written.
    pub header: LitStr,
    /// `#[serde(rename = "...")]`, when given.
    pub rename: Option<String>,
    /// `#[serde(skip)]`, `skip_deserializing` or `flatten`: the field is no property of its
    /// own. The span of that word.
    pub not_a_property: Option<Span>,
}

/// What kind of type it is.
pub enum Body {
    /// `struct X { ... }`.
    Named,
    /// `struct X;`
    Unit,
    /// `struct X(...);`, spanned on the fields.
    Tuple(Span),
    /// `enum X { ... }`, spanned on `enum`.
    Enum(Span),
    /// `union X { ... }`, spanned on `union`.
    Union(Span),
}

impl<'a> Input<'a> {
    /// Reads the type; `#[tool(...)]` syntax problems go to `cx`.
    pub fn from_syn(cx: &mut Ctxt, input: &'a DeriveInput) -> Self {
        let body = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(_) => Body::Named,
                Fields::Unit => Body::Unit,
                Fields::Unnamed(fields) => Body::Tuple(fields.paren_token.span.join()),
            },
            Data::Enum(data) => Body::Enum(data.enum_token.span),
            Data::Union(data) => Body::Union(data.union_token.span),
        };
        let headers = match &input.data {
            Data::Struct(data) => header_fields(cx, &data.fields),
            _ => Vec::new(),
        };
        Self {
            ident: &input.ident,
            generics: &input.generics,
            attrs: crate::attr::parse(cx, &input.attrs),
            doc: doc_comment(&input.attrs),
            body,
            headers,
            rename_all: serde_words(&input.attrs)
                .into_iter()
                .find_map(|(word, value, _)| (word == "rename_all").then_some(value).flatten()),
        }
    }
}

/// The fields with `#[tool(header = "...")]`; any other field `#[tool]` key is an error.
fn header_fields<'a>(cx: &mut Ctxt, fields: &'a Fields) -> Vec<HeaderField<'a>> {
    let mut out = Vec::new();
    for field in fields {
        for attr in field
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident("tool"))
        {
            let mut header = None;
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("header") {
                    header = Some(meta.value()?.parse::<LitStr>()?);
                    Ok(())
                } else {
                    Err(meta.error(
                        "the only `#[tool(...)]` key on a field is `header = \"Name\"` (MCP 2026-07-28 `x-mcp-header`)",
                    ))
                }
            });
            if let Err(err) = result {
                cx.syn_error(err);
                continue;
            }
            let (Some(ident), Some(header)) = (&field.ident, header) else {
                if field.ident.is_none() {
                    cx.error_spanned_by(attr, "`header` needs a named field");
                }
                continue;
            };
            let serde = serde_words(&field.attrs);
            out.push(HeaderField {
                ident,
                ty: &field.ty,
                header,
                rename: serde.iter().find_map(|(word, value, _)| {
                    (word == "rename").then(|| value.clone()).flatten()
                }),
                not_a_property: serde
                    .iter()
                    .find(|(word, _, _)| {
                        ["skip", "skip_deserializing", "flatten"].contains(&word.as_str())
                    })
                    .map(|(_, _, span)| *span),
            });
        }
    }
    out
}

/// The words of `#[serde(...)]` attributes: `(word, string value if `= "..."`, span)`. Other
/// shapes (`rename(deserialize = ...)`) are skipped: serde checks them.
fn serde_words(attrs: &[syn::Attribute]) -> Vec<(String, Option<String>, Span)> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let word = meta
                .path
                .get_ident()
                .map(|ident| ident.unraw().to_string())
                .unwrap_or_default();
            let span = meta
                .path
                .segments
                .first()
                .map_or_else(Span::call_site, |s| s.ident.span());
            if meta.input.peek(syn::Token![=]) {
                let value = meta.value()?;
                let text = value.parse::<Expr>().ok().and_then(|expr| match expr {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) => Some(text.value()),
                    _ => None,
                });
                out.push((word, text, span));
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _ = inner.value()?.parse::<Expr>()?;
                    }
                    Ok(())
                });
            } else {
                out.push((word, None, span));
            }
            Ok(())
        });
    }
    out
}

/// The doc comment as `::core::concat!(line, "\n", line, ...)`, each literal line without the
/// one leading space `///` leaves (as `schemars` reads doc comments).
fn doc_comment(attrs: &[syn::Attribute]) -> Option<TokenStream> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        let Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        let line = match &meta.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => {
                let value = text.value();
                let trimmed = value.strip_prefix(' ').unwrap_or(&value).to_owned();
                trimmed.into_token_stream()
            }
            other => other.to_token_stream(),
        };
        lines.push(line);
    }
    if lines.is_empty() {
        return None;
    }
    let mut parts = Vec::with_capacity(lines.len() * 2);
    for (index, line) in lines.into_iter().enumerate() {
        if index > 0 {
            parts.push(quote!("\n"));
        }
        parts.push(line);
    }
    Some(quote!(::core::concat!(#(#parts),*)))
}
