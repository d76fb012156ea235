//! What a derive with errors expands to: every error, beside an impl of `ToolDefinition` whose
//! body is never run. The impl keeps code that uses the type (`T::tool()`, `T::parse(...)`)
//! free of secondary "trait not implemented" errors, so the user sees only the real ones. The
//! input and output types are the ones the user meant when they are known, so that a type
//! missing `Deserialize` or `JsonSchema` is reported in the same build.

use proc_macro2::TokenStream;
use quote::quote;

use crate::typed::{schemars_in_scope, typed_methods};
use crate::valid::{Checked, InputKind};

pub fn expand(tool: &Checked<'_>, errors: &syn::Error) -> TokenStream {
    let krate = &tool.krate;
    let ident = tool.ident;
    let (impl_generics, ty_generics, where_clause) = tool.generics.split_for_impl();
    let errors = errors.to_compile_error();
    let input_ty = match &tool.input {
        InputKind::This if tool.generics.params.is_empty() => quote!(#ident),
        InputKind::Type(ty) => ty.clone(),
        InputKind::This | InputKind::None | InputKind::Broken => quote!(#krate::NoArguments),
    };
    let output_ty = match &tool.output {
        Some(ty) => ty.clone(),
        None => quote!(#krate::NoOutput),
    };
    let typed = typed_methods(tool);
    let name = &tool.name;
    let id = &tool.id;
    let schemars = schemars_in_scope(krate);
    quote! {
        #errors
        #schemars

        #[automatically_derived]
        impl #impl_generics #krate::ToolDefinition for #ident #ty_generics #where_clause {
            type Input = #input_ty;
            type Output = #output_ty;
            const NAME: &'static str = #name;
            const NAMESPACE: #krate::__private::Option<&'static str> = #krate::__private::None;
            const ID: &'static str = #id;

            fn __definition() -> &'static #krate::__private::Definition {
                ::core::unreachable!()
            }

            #typed
        }
    }
}
