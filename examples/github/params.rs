//! Parameter types shared by several tools: pagination, issue states, and a field an update can
//! clear.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use toolmodel::schemars::{self, JsonSchema, Schema, SchemaGenerator};

/// Page-number pagination (`page`, `perPage`), flattened into the tools that take it, as
/// github-mcp-server's `WithPagination` adds the same two properties to each of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, JsonSchema)]
pub struct Pagination {
    /// Page number for pagination (min 1)
    #[schemars(range(min = 1))]
    pub page: Option<f64>,
    /// Results per page for pagination (min 1, max 100)
    #[serde(rename = "perPage")]
    #[schemars(range(min = 1, max = 100))]
    pub per_page: Option<f64>,
}

/// Sort direction of a search: `asc` or `desc`.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum SortOrder {
    Asc,
    Desc,
}

/// The state of an issue: `open` or `closed`.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum IssueState {
    Open,
    Closed,
}

/// Why an issue changed state: `completed`, `not_planned` or `duplicate`.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum StateReason {
    Completed,
    NotPlanned,
    Duplicate,
}

/// A property an update may leave alone (absent), clear (`null`) or set (a value): the three
/// meanings github-mcp-server gives to `issue_write`'s `type`, which `Option<T>` cannot tell
/// apart.
///
/// Use it with `#[serde(default)]`. Its schema is `Option<T>`'s: `T`'s, nullable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Change<T> {
    /// The property was absent: leave the value as it is.
    #[default]
    Keep,
    /// The property was `null`: remove the value.
    Clear,
    /// The property holds a new value.
    Set(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Change<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(deserializer)?.map_or(Self::Clear, Self::Set))
    }
}

impl<T: JsonSchema> JsonSchema for Change<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Change_of_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Option::<T>::json_schema(generator)
    }
}
