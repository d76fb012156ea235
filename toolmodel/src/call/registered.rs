//! `ToolboxBuilder::with_registered` (feature `inventory`): every `#[tool(register)]` type
//! that is a [`ToolHandler`] and a unit struct or `Default` becomes a handler; any other
//! registered type is a build error naming it.
//!
//! Which case a type is in is decided where it is registered, by the derive's expansion, with
//! autoref-based dispatch over the concrete type: a unit struct that is a `ToolHandler` is
//! served as itself ([`ServeWith`]), a `ToolHandler + Default` type is served, a
//! `ToolHandler` without `Default` has state the toolbox cannot make up, and a type that is no
//! handler cannot be called.

use std::marker::PhantomData;

use crate::call::handler::ToolHandler;
use crate::call::toolbox::ToolboxBuilder;
use crate::define::definition::ToolDefinition;
use crate::error::Error;

impl ToolboxBuilder {
    /// Adds every `#[tool(register)]` type of the program (feature `inventory`), ordered by
    /// tool ID. The rule: a registered type is served when it implements [`ToolHandler`] and
    /// is a unit struct (`struct Ping;`: the value is the handler, no `Default` needed) or
    /// implements `Default` (its handler is `Default::default()`); a registered type with
    /// state (no `Default`) is added with [`with`](Self::with) instead, before or after this
    /// call.
    ///
    /// [`build`](Self::build) reports [`Error::Unservable`] for a registered type that is
    /// not a `ToolHandler`, or that is neither a unit struct nor `Default` and was not added with
    /// `with`.
    pub fn with_registered(mut self) -> Self {
        let mut all: Vec<&'static Servable> = inventory::iter::<Servable>().collect();
        all.sort_by_key(|servable| (servable.id, (servable.type_name)()));
        for servable in all {
            self = (servable.serve)(self);
        }
        self
    }
}

/// Not public API: how one registered type joins a toolbox.
#[doc(hidden)]
#[derive(Debug)]
pub struct Servable {
    id: &'static str,
    type_name: fn() -> &'static str,
    serve: fn(ToolboxBuilder) -> ToolboxBuilder,
}

impl Servable {
    /// The entry of `T`, joining a toolbox with `serve`.
    pub const fn of<T: ToolDefinition>(serve: fn(ToolboxBuilder) -> ToolboxBuilder) -> Self {
        Self {
            id: T::ID,
            type_name: std::any::type_name::<T>,
            serve,
        }
    }
}

inventory::collect!(Servable);

/// Not public API: the autoref probe the registration expands to,
/// `(&&&Probe::<T>::NEW).serve()`.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    pub const NEW: Self = Self(PhantomData);
}

/// Not public API: chosen first, for `ToolHandler + Default` types.
#[doc(hidden)]
pub trait ServeDefault {
    /// How the type joins a toolbox.
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder;
}

/// Not public API: chosen for handlers without `Default`.
#[doc(hidden)]
pub trait ServeStateful {
    /// How the type joins a toolbox.
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder;
}

/// Not public API: chosen for types that are not handlers.
#[doc(hidden)]
pub trait ServeNothing {
    /// How the type joins a toolbox.
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder;
}

impl<T: ToolHandler + Default> ServeDefault for &&Probe<T> {
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder {
        |builder| builder.with(T::default())
    }
}

impl<T: ToolHandler> ServeStateful for &Probe<T> {
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder {
        |builder| {
            builder.require(
                std::any::type_name::<T>(),
                unservable::<T>(
                    "it has no `Default`, so the toolbox cannot make its handler: add it with `.with(handler)`",
                ),
            )
        }
    }
}

impl<T: ToolDefinition> ServeNothing for Probe<T> {
    fn serve(&self) -> fn(ToolboxBuilder) -> ToolboxBuilder {
        |builder| builder.problem(unservable::<T>(NOT_A_HANDLER))
    }
}

/// Not public API: chosen first for a registered unit struct that is a handler: the value is
/// the handler, so no `Default` is needed.
#[doc(hidden)]
pub trait ServeWith<T> {
    /// Adds `value` to `builder`.
    fn serve_with(&self, builder: ToolboxBuilder, value: T) -> ToolboxBuilder;
}

/// Not public API: chosen for a registered unit struct that is not a handler.
#[doc(hidden)]
pub trait ServeNothingWith<T> {
    /// Records that `T` cannot be served.
    fn serve_with(&self, builder: ToolboxBuilder, value: T) -> ToolboxBuilder;
}

impl<T: ToolHandler> ServeWith<T> for &Probe<T> {
    fn serve_with(&self, builder: ToolboxBuilder, value: T) -> ToolboxBuilder {
        builder.with(value)
    }
}

impl<T: ToolDefinition> ServeNothingWith<T> for Probe<T> {
    fn serve_with(&self, builder: ToolboxBuilder, _: T) -> ToolboxBuilder {
        builder.problem(unservable::<T>(NOT_A_HANDLER))
    }
}

/// Why a registered type that is no handler cannot be served.
const NOT_A_HANDLER: &str =
    "it does not implement `ToolHandler` (or `SyncToolHandler`), so it cannot be called";

fn unservable<T>(reason: &str) -> Error {
    Error::Unservable {
        type_name: std::any::type_name::<T>().to_owned(),
        reason: reason.to_owned(),
    }
}
