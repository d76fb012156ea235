//! Error accumulation: every problem found in one derive is collected and reported at once.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects the errors of one derive, each spanned on the user's token.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// An error spanned on a syntax node (all of its tokens).
    pub fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.errors
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// An error at one span.
    pub fn error_at<M: Display>(&mut self, span: Span, message: M) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// A `syn` parse error.
    pub fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// `Ok` when nothing was reported, else every error combined into one.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
