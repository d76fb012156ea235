//! Code generation: one `ToolDefinition` impl holding one `static` definition (a constant
//! description of the tool plus the caches the runtime fills once), and, for
//! `#[tool(register)]`, one `inventory` submission. Everything else lives in `toolmodel`'s
//! provided methods, so that the generated code stays small.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::{
    ast::Input,
    ctxt::Ctxt,
    fallback,
    typed::{respan, schemars_in_scope, typed_methods},
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
            Some(theme) => quote!(#krate::__private::Some(#krate::model::IconTheme::#theme)),
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
        Some(value) => quote!(#krate::__private::Some(#krate::model::TaskSupport::#value)),
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
