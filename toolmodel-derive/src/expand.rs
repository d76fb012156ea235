//! Code generation: one `ToolDefinition` impl holding one `static` definition (a constant
//! description of the tool plus the caches the runtime fills once), and, for
//! `#[tool(register)]`, one `inventory` submission. Everything else lives in `toolmodel`'s
//! provided methods, so that the generated code stays small.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::{
    ast::Input,
    ctxt::Ctxt,
    fallback,
    valid::{self, Checked, InputKind},
};

/// The derive: parse, check, expand; on any error, every error beside a fallback impl.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    let parsed = Input::from_syn(&mut cx, input);
    let checked = valid::check(&mut cx, parsed);
    match cx.check() {
        Ok(()) => expand(&checked),
        Err(errors) => fallback::expand(&checked, &errors),
    }
}

fn expand(tool: &Checked<'_>) -> TokenStream {
    let krate = &tool.krate;
    let ident = tool.ident;
    let (impl_generics, ty_generics, where_clause) = tool.generics.split_for_impl();
    let input_ty = match &tool.input {
        InputKind::This => quote!(#ident),
        InputKind::Type(ty) => ty.clone(),
        InputKind::None | InputKind::Broken => quote!(#krate::NoArguments),
    };
    let output_ty = match &tool.output {
        Some(ty) => ty.clone(),
        None => quote!(#krate::NoOutput),
    };
    let typed = typed_methods(tool);

    let name = &tool.name;
    let id = &tool.id;
    let namespace = option_str(krate, tool.namespace.as_deref());
    let version = option_str(krate, tool.version.as_deref());
    let title = option_str(krate, tool.title.as_deref());
    let description = match &tool.description {
        Some(text) => quote!(#krate::__private::Some(#text)),
        None => quote!(#krate::__private::None),
    };
    let tags = &tool.tags;
    let annotations = match &tool.annotations {
        Some(a) => {
            let title = option_str(krate, a.title.as_ref().map(syn::LitStr::value).as_deref());
            let flags = [a.read_only, a.destructive, a.idempotent, a.open_world]
                .map(|flag| option_bool(krate, flag));
            let [read_only, destructive, idempotent, open_world] = flags;
            quote! {
                #krate::__private::Some(#krate::__private::AnnotationsSpec {
                    title: #title,
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                })
            }
        }
        None => quote!(#krate::__private::None),
    };
    let icons = tool.icons.iter().map(|icon| {
        let src = &icon.src;
        let mime_type = option_str(krate, icon.mime_type.as_deref());
        let sizes = match &icon.sizes {
            Some(sizes) => quote!(#krate::__private::Some(&[#(#sizes),*])),
            None => quote!(#krate::__private::None),
        };
        let theme = match &icon.theme {
            Some(theme) => quote!(#krate::__private::Some(#krate::IconTheme::#theme)),
            None => quote!(#krate::__private::None),
        };
        quote! {
            #krate::__private::IconSpec {
                src: #src,
                mime_type: #mime_type,
                sizes: #sizes,
                theme: #theme,
            }
        }
    });
    let task_support = match &tool.task_support {
        Some(value) => quote!(#krate::__private::Some(#krate::TaskSupport::#value)),
        None => quote!(#krate::__private::None),
    };
    let local = &tool.local;
    let switches = tool.schema;
    let headers = tool
        .headers
        .iter()
        .map(|(property, header)| quote!((#property, #header)));
    let register = tool.register.map(|span| {
        let krate = respan(krate, span);
        // A unit struct is its own value: the toolbox serves it without `Default`.
        let value = tool.unit.then(|| quote_spanned!(span=> , #ident));
        quote_spanned! {span=>
            #krate::__private::register!(#ident #value);
        }
    });

    let schemars = schemars_in_scope(krate);
    quote! {
        #schemars

        #[automatically_derived]
        impl #impl_generics #krate::ToolDefinition for #ident #ty_generics #where_clause {
            type Input = #input_ty;
            type Output = #output_ty;
            const NAME: &'static str = #name;
            const NAMESPACE: #krate::__private::Option<&'static str> = #namespace;
            const ID: &'static str = #id;

            #[inline]
            fn __definition() -> &'static #krate::__private::Definition {
                static DEFINITION: #krate::__private::Definition =
                    #krate::__private::Definition::new(#krate::__private::Spec {
                        name: #name,
                        namespace: #namespace,
                        version: #version,
                        title: #title,
                        description: #description,
                        tags: &[#(#tags),*],
                        annotations: #annotations,
                        icons: &[#(#icons),*],
                        task_support: #task_support,
                        local: #local,
                        headers: &[#(#headers),*],
                        profile: #krate::__private::profile(#(#switches),*),
                    });
                &DEFINITION
            }

            #typed
        }
        #register
    }
}

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
fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
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

fn option_str(krate: &TokenStream, value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(#krate::__private::Some(#text)),
        None => quote!(#krate::__private::None),
    }
}

fn option_bool(krate: &TokenStream, value: Option<bool>) -> TokenStream {
    match value {
        Some(flag) => quote!(#krate::__private::Some(#flag)),
        None => quote!(#krate::__private::None),
    }
}
