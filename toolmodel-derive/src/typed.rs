//! The part of the generated `ToolDefinition` impl that both a full expansion (`expand.rs`)
//! and the fallback beside errors (`fallback.rs`) carry: the methods that name the input and
//! output types, spanned on the types the user wrote, and the `schemars` import the derived
//! `JsonSchema` code needs.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

use crate::valid::{Checked, InputKind};

/// A glob import that puts `toolmodel`'s `schemars` in the tool's module, for the code that
/// `#[derive(JsonSchema)]` generates: it names the crate `schemars`, so `use
/// toolmodel::schemars::JsonSchema;` alone (without `self`) left four unresolved paths. A glob
/// import is shadowed by any explicit `schemars` (`use toolmodel::schemars::{self, ...}`, a
/// module of that name), and it names the same crate as a `schemars` dependency of the user's
/// own (the one `toolmodel` re-exports), so it changes nothing where `schemars` was in scope.
pub fn schemars_in_scope(krate: &TokenStream) -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use #krate::__private::schemars_in_scope::*;
    }
}

/// The trait methods that use the input and output types: schema generation,
/// deserialization, serialization. Each is `#[inline]`, so that code for it is generated only
/// where the tool is used, and each asks for exactly one trait of its type, spanned on the
/// type the user wrote: a type missing a derive gets one error per missing trait, there. The
/// fallback emits them too, so those errors come with the others.
pub fn typed_methods(tool: &Checked<'_>) -> TokenStream {
    let krate = &tool.krate;
    let private = quote!(#krate::__private);
    let ident = tool.ident;
    // A struct that is its own arguments gets the bounds whose errors also say what to write
    // for a handler with state (`input = Args`).
    let input = match &tool.input {
        InputKind::This if tool.generics.params.is_empty() => Some((
            quote!(#ident),
            ident.span(),
            quote!(own_input),
            quote!(deserialize_own),
        )),
        InputKind::Type(ty) => Some((
            ty.clone(),
            first_span(ty),
            quote!(input),
            quote!(deserialize),
        )),
        // A generic arguments struct is an error already reported.
        InputKind::This | InputKind::None | InputKind::Broken => None,
    };
    let (input_schema, deserialize) = match input {
        Some((ty, span, schema_of, deserialize)) => {
            let at = respan(&private, span);
            (
                quote_spanned!(span=> #at::SchemaOf::#schema_of::<#ty>()),
                quote_spanned!(span=> #at::#deserialize::<#ty>(arguments)),
            )
        }
        None => (
            quote!(#private::SchemaOf::no_arguments()),
            quote!(#private::deserialize::<#krate::NoArguments>(arguments)),
        ),
    };
    let (output_schema, serialize) = match &tool.output {
        Some(ty) => {
            let span = first_span(ty);
            let at = respan(&private, span);
            (
                quote_spanned!(span=> #at::Some(#at::SchemaOf::output::<#ty>())),
                quote_spanned!(span=> #at::serialize::<#ty>(output)),
            )
        }
        None => (
            quote!(#private::None),
            quote!(#private::serialize::<#krate::NoOutput>(output)),
        ),
    };
    quote! {
        #[inline]
        fn __input_schema() -> #private::SchemaOf {
            #input_schema
        }

        #[inline]
        fn __output_schema() -> #private::Option<#private::SchemaOf> {
            #output_schema
        }

        #[inline]
        fn __deserialize(
            arguments: &#private::Value,
        ) -> #private::Result<Self::Input, #krate::Error> {
            #deserialize
        }

        #[inline]
        fn __serialize(output: &Self::Output) -> #private::Result<#private::Value, #krate::Error> {
            #serialize
        }
    }
}

/// The span of a type's first token (a span cannot be joined on stable Rust).
fn first_span(tokens: &TokenStream) -> Span {
    tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}

/// Tokens with every span set to `span`: an expression whose tokens all carry the user's
/// span is reported there, not at `#[derive(Tool)]`.
pub fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(&group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}
