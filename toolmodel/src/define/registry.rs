//! Local backend registration: every tool derived with `#[tool(register)]`, in one list (the
//! `inventory` feature).
//!
//! A server registers all its derived tools with one loop over [`registered_tools`], wherever
//! in the program (or in its dependencies) the tools are defined. The list is assembled by the
//! `inventory` crate before `main` starts; it works on Linux, macOS, Windows, the BSDs, iOS,
//! Android and WebAssembly.

use crate::define::definition::ToolDefinition;
use crate::error::Error;
use crate::model::backend::Backend;
use crate::model::id::ToolId;
use crate::model::tool::Tool;

/// A tool found by [`registered_tools`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RegisteredTool {
    /// The tool's ID ([`ToolDefinition::ID`]).
    pub id: ToolId,
    /// The tool ([`ToolDefinition::tool`]).
    pub tool: &'static Tool,
    /// Its local backend binding ([`ToolDefinition::backend`]).
    pub backend: &'static Backend,
}

/// Every tool derived with `#[tool(register)]` in the program, ordered by ID (then by name of
/// the Rust type, for two types with one ID).
///
/// Each item is the tool, or the error its [`ToolDefinition::try_tool`] gives ([`Error::ToolType`]:
/// a type that cannot be an MCP schema), so that one bad tool does not hide the others. (An
/// [`Error::InvalidToolId`] cannot happen: the derive checks both parts of the ID at compile time
/// with the rules [`ToolId`] applies.)
///
/// ```
/// use serde::Deserialize;
/// use toolmodel::{Tool, registered_tools, schemars::{self, JsonSchema}};
///
/// /// Says hello.
/// #[derive(Deserialize, JsonSchema, Tool)]
/// #[tool(register, namespace = "demo")]
/// struct Hello {
///     name: String,
/// }
///
/// let ids: Vec<String> = registered_tools()
///     .map(|entry| entry.map(|found| found.id.to_string()))
///     .collect::<Result<_, _>>()?;
/// assert!(ids.contains(&"demo:hello".to_owned()));
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub fn registered_tools() -> impl Iterator<Item = Result<RegisteredTool, Error>> {
    let mut all: Vec<&'static Registration> = inventory::iter::<Registration>().collect();
    all.sort_by_key(|registration| (registration.id, (registration.type_name)()));
    all.into_iter().map(|registration| {
        Ok(RegisteredTool {
            id: registration.id.parse()?,
            tool: (registration.tool)()?,
            backend: (registration.backend)(),
        })
    })
}

/// Not public API: one `#[tool(register)]`, submitted to `inventory`.
#[doc(hidden)]
#[derive(Debug)]
pub struct Registration {
    id: &'static str,
    type_name: fn() -> &'static str,
    tool: fn() -> Result<&'static Tool, Error>,
    backend: fn() -> &'static Backend,
}

impl Registration {
    /// The registration of `T`.
    pub const fn of<T: ToolDefinition>() -> Self {
        Self {
            id: T::ID,
            type_name: std::any::type_name::<T>,
            tool: T::try_tool,
            backend: T::backend,
        }
    }
}

inventory::collect!(Registration);
