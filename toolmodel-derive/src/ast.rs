//! The deriving type, read from `syn`: its name, generics, doc comment, fields and
//! `#[tool(...)]` attributes.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput, Expr, ExprLit, Fields, Generics, Ident, Lit, Meta};

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
        Self {
            ident: &input.ident,
            generics: &input.generics,
            attrs: crate::attr::parse(cx, &input.attrs),
            doc: doc_comment(&input.attrs),
            body,
        }
    }
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
