//! [`ToolDefinition`]: a Rust type that defines an MCP tool (MCP 2025-11-25, `Tool`: "Definition
//! for a tool the client can call"), usually through `#[derive(Tool)]`.

use std::{fmt, sync::OnceLock};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::define::profile::{ProfiledSchema, SchemaProfile};
use crate::define::type_problem::TypeProblem;
use crate::error::Error;
use crate::model::backend::Backend;
use crate::model::schema::ToolSchema;
use crate::model::tool::{Icon, IconTheme, TaskSupport, Tool, ToolAnnotations, ToolExecution};
use crate::validate::compiled::CompiledSchema;
use crate::validate::validator::DefaultValidator;
use crate::validate::violation::SchemaSlot;

/// A Rust type that defines an MCP tool: its name and ID as constants, its [`Tool`](struct@Tool) built once,
/// its local [`Backend`] binding, typed argument parsing and result checking.
///
/// Implement it with `#[derive(Tool)]` (the `derive` feature, on by default); the derive checks
/// the name, namespace, version, tags and icons at compile time and generates the schemas with
/// `schemars` through [`SchemaProfile::MCP`]. Implementing it by hand is not supported: the
/// hidden methods it requires may change in any release.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use serde::Deserialize;
/// use serde_json::json;
/// use toolmodel::{Error, Tool, ToolDefinition, schemars::{self, JsonSchema}};
///
/// /// Current weather for a city.
/// #[derive(Deserialize, JsonSchema, Tool)]
/// #[tool(namespace = "weather", version = "1.0.0")]
/// struct GetWeather {
///     /// City name.
///     city: String,
///     /// Days ahead, 0 to 7.
///     #[schemars(range(max = 7))]
///     days: Option<u8>,
/// }
///
/// assert_eq!(GetWeather::ID, "weather:get_weather");
/// let tool = GetWeather::tool();
/// assert_eq!(tool.description.as_deref(), Some("Current weather for a city."));
///
/// let args = GetWeather::parse(&json!({"city": "Paris", "days": 2}))?;
/// assert_eq!((args.city.as_str(), args.days), ("Paris", Some(2)));
///
/// let Err(Error::InvalidInstance { errors }) = GetWeather::parse(&json!({"days": 9})) else {
///     panic!("expected violations")
/// };
/// let at: Vec<&str> = errors.iter().map(|e| e.instance_path.as_str()).collect();
/// assert_eq!(at, ["/days", ""]); // 9 is above 7; `city` is missing
/// # }
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub trait ToolDefinition {
    /// The arguments, deserialized from `tools/call` `arguments` by [`parse`](Self::parse):
    /// the type itself, `#[tool(input = ...)]`, or [`NoArguments`]. Always a [`ToolInput`]
    /// (the derive checks it, with a message naming the missing derive).
    type Input;
    /// The result's `structuredContent`, checked by
    /// [`structured_content`](Self::structured_content): `#[tool(output = ...)]`, or
    /// [`NoOutput`] when the tool declares no `outputSchema`. Always a [`ToolOutput`].
    type Output;

    /// The tool name (MCP `name`), checked at compile time by the MCP "Tool Names" rules.
    const NAME: &'static str;
    /// The namespace (a `toolmodel` extension), same rules.
    const NAMESPACE: Option<&'static str>;
    /// The tool ID: `namespace:name`, or the name alone (see [`ToolId`](crate::ToolId)).
    const ID: &'static str;

    /// Not public API: the tool's constant description and caches.
    #[doc(hidden)]
    fn __definition() -> &'static Definition;
    /// Not public API: how to generate the input schema.
    #[doc(hidden)]
    fn __input_schema() -> SchemaOf;
    /// Not public API: how to generate the output schema, if any.
    #[doc(hidden)]
    fn __output_schema() -> Option<SchemaOf>;
    /// Not public API: deserialization of validated arguments.
    #[doc(hidden)]
    fn __deserialize(arguments: &Value) -> Result<Self::Input, Error>;
    /// Not public API: serialization of an output.
    #[doc(hidden)]
    fn __serialize(output: &Self::Output) -> Result<Value, Error>;

    /// The tool, built on the first call and returned by reference after that.
    ///
    /// # Errors
    ///
    /// [`Error::ToolType`] when the input type's schema root is not `"type": "object"` (MCP
    /// requires it of `inputSchema` in every version), naming the Rust type;
    /// [`Error::InvalidTool`] if the built tool breaks another MCP rule of
    /// [`ProtocolVersion::LATEST`](crate::ProtocolVersion::LATEST) (the derive checks them at
    /// compile time, so this means a bug). The same error is returned on every call.
    ///
    /// The output type may have any schema (MCP 2026-07-28: `outputSchema` is any JSON Schema
    /// 2020-12, `structuredContent` any value): `output = Vec<Item>` builds. Writing such a tool
    /// for 2025-11-25 or older, whose `outputSchema` root must be `"type": "object"`, is
    /// [`Error::Unwritable`] from [`Tool::to_mcp_json_for`](crate::Tool::to_mcp_json_for).
    fn try_tool() -> Result<&'static Tool, Error> {
        Self::__definition().tool(Self::__input_schema, Self::__output_schema)
    }

    /// The tool, built on the first call and returned by reference after that; later calls
    /// cost one atomic load and a branch.
    ///
    /// # Panics
    ///
    /// When [`try_tool`](Self::try_tool) fails, with its message: the input type cannot be an
    /// MCP tool schema (say, `input = Vec<Item>`, whose schema is an array).
    /// That is a mistake in the program, the same on every run, which the first test or call
    /// that lists the tool finds; `#[derive(Tool)]` cannot see a type's schema at compile time.
    /// Use [`try_tool`](Self::try_tool) to get it as an error instead.
    #[inline]
    fn tool() -> &'static Tool {
        Self::__definition().built(Self::__input_schema, Self::__output_schema)
    }

    /// The tool's local backend binding: [`Backend::local`] named by `#[tool(local = "...")]`,
    /// by default the tool ID. The same binding is in [`Tool::backends`] of
    /// [`tool`](Self::tool).
    fn backend() -> &'static Backend {
        Self::__definition().backend()
    }

    /// Validates `tools/call` `arguments` against the input schema, then deserializes them.
    ///
    /// The schema is compiled once, on the first call, and kept. Pass `{}` when a request has
    /// no `arguments` (MCP treats them alike).
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidInstance`] listing every violation, each with its JSON Pointer in the
    ///   arguments and in the schema.
    /// - [`Error::Json`] with the JSON Pointer when the arguments match the schema but
    ///   deserialization still fails (a custom `Deserialize` rule the schema does not show).
    /// - What [`try_tool`](Self::try_tool) returns, and [`Error::InvalidSchema`] when the
    ///   generated schema does not compile (say, an invalid `#[schemars(regex)]`).
    fn parse(arguments: &Value) -> Result<Self::Input, Error> {
        Self::__definition()
            .input_validator(Self::__input_schema, Self::__output_schema)?
            .validate(arguments)?;
        Self::__deserialize(arguments)
    }

    /// Serializes a result and validates it against the output schema: the value for MCP
    /// `CallToolResult.structuredContent` (MCP: a server must conform to its `outputSchema`).
    ///
    /// # Errors
    ///
    /// [`Error::Json`] when serialization fails (with the JSON Pointer of the failing value);
    /// [`Error::InvalidInstance`] with every violation when the value does not match the
    /// schema (a `#[schemars]` rule the value breaks); what [`try_tool`](Self::try_tool)
    /// returns.
    fn structured_content(output: &Self::Output) -> Result<Value, Error> {
        let value = Self::__serialize(output)?;
        if let Some(validator) =
            Self::__definition().output_validator(Self::__input_schema, Self::__output_schema)?
        {
            validator.validate(&value)?;
        }
        Ok(value)
    }
}

/// Types that can be a tool's arguments: `serde::Deserialize` (owned) and
/// `schemars::JsonSchema`. Implemented for every such type.
pub trait ToolInput: InputDeserialize + InputSchema {}

impl<T: InputDeserialize + InputSchema> ToolInput for T {}

/// Types that can be a tool's `structuredContent`: `serde::Serialize` and
/// `schemars::JsonSchema`. Implemented for every such type.
pub trait ToolOutput: OutputSerialize + OutputSchema {}

impl<T: OutputSerialize + OutputSchema> ToolOutput for T {}

/// One trait each, so that a type missing one derive gets one error that names it.
mod needs {
    use super::{DeserializeOwned, Serialize};

    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the arguments of a tool: it does not implement `serde::Deserialize`",
        label = "not `serde::Deserialize`",
        note = "add `#[derive(serde::Deserialize)]` to `{Self}`"
    )]
    /// `serde::Deserialize` (owned), for tool arguments.
    pub trait InputDeserialize: DeserializeOwned {}
    impl<T: DeserializeOwned> InputDeserialize for T {}

    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the arguments of a tool: it does not implement `schemars::JsonSchema`",
        label = "not `schemars::JsonSchema`",
        note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`, with `use toolmodel::schemars;` in scope"
    )]
    /// `schemars::JsonSchema`, for tool arguments.
    pub trait InputSchema: schemars::JsonSchema {}
    impl<T: schemars::JsonSchema> InputSchema for T {}

    #[diagnostic::on_unimplemented(
        message = "`{Self}` is its own tool's arguments (no `#[tool(input = ...)]`), but it does not implement `serde::Deserialize`",
        label = "the arguments: not `serde::Deserialize`",
        note = "if the fields of `{Self}` are the tool's arguments, add `#[derive(serde::Deserialize)]` to it",
        note = "if they are the handler's state (a client, a pool, an `Arc<Mutex<_>>`), put the arguments in a struct of their own and name it: `#[tool(input = Args)]`"
    )]
    /// `serde::Deserialize` (owned), for a struct that is its own tool's arguments.
    pub trait OwnArgumentsDeserialize: DeserializeOwned {}
    impl<T: DeserializeOwned> OwnArgumentsDeserialize for T {}

    #[diagnostic::on_unimplemented(
        message = "`{Self}` is its own tool's arguments (no `#[tool(input = ...)]`), but it does not implement `schemars::JsonSchema`",
        label = "the arguments: not `schemars::JsonSchema`",
        note = "if the fields of `{Self}` are the tool's arguments, add `#[derive(schemars::JsonSchema)]` to it, with `use toolmodel::schemars;` in scope",
        note = "if they are the handler's state (a client, a pool, an `Arc<Mutex<_>>`), put the arguments in a struct of their own and name it: `#[tool(input = Args)]`"
    )]
    /// `schemars::JsonSchema`, for a struct that is its own tool's arguments.
    pub trait OwnArgumentsSchema: schemars::JsonSchema {}
    impl<T: schemars::JsonSchema> OwnArgumentsSchema for T {}

    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the output of a tool: it does not implement `serde::Serialize`",
        label = "not `serde::Serialize`",
        note = "add `#[derive(serde::Serialize)]` to `{Self}`"
    )]
    /// `serde::Serialize`, for a tool's output.
    pub trait OutputSerialize: Serialize {}
    impl<T: Serialize> OutputSerialize for T {}

    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the output of a tool: it does not implement `schemars::JsonSchema`",
        label = "not `schemars::JsonSchema`",
        note = "add `#[derive(schemars::JsonSchema)]` to `{Self}`, with `use toolmodel::schemars;` in scope"
    )]
    /// `schemars::JsonSchema`, for a tool's output.
    pub trait OutputSchema: schemars::JsonSchema {}
    impl<T: schemars::JsonSchema> OutputSchema for T {}
}

#[doc(hidden)]
pub use needs::{
    InputDeserialize, InputSchema, OutputSchema, OutputSerialize, OwnArgumentsDeserialize,
    OwnArgumentsSchema,
};

/// The arguments of a tool with no parameters: the JSON object `{}` and nothing else, with the
/// schema MCP recommends, `{"type": "object", "additionalProperties": false}`
/// ([`ToolSchema::empty_object`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NoArguments {}

impl schemars::JsonSchema for NoArguments {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArguments".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "additionalProperties": false})
    }
}

/// The output of a tool that declares no `outputSchema`. It has no values, so
/// [`ToolDefinition::structured_content`] cannot be called for such a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoOutput {}

impl Serialize for NoOutput {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        match *self {}
    }
}

impl schemars::JsonSchema for NoOutput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoOutput".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        false.into()
    }
}

/// Not public API: the pieces `#[derive(Tool)]` generates code against.
#[doc(hidden)]
pub mod private {
    use super::*;

    /// Everything the derive knows about a tool, as constants.
    #[derive(Debug)]
    pub struct Spec {
        pub name: &'static str,
        pub namespace: Option<&'static str>,
        pub version: Option<&'static str>,
        pub title: Option<&'static str>,
        pub description: Option<&'static str>,
        pub tags: &'static [&'static str],
        pub category: Option<&'static str>,
        pub required_scopes: &'static [&'static str],
        /// The timeout in milliseconds.
        pub timeout_ms: Option<u64>,
        pub annotations: Option<AnnotationsSpec>,
        pub icons: &'static [IconSpec],
        pub task_support: Option<TaskSupport>,
        pub local: &'static str,
        /// `(property, x-mcp-header)` of each `#[tool(header = "...")]` field.
        pub headers: &'static [(&'static str, &'static str)],
        pub profile: SchemaProfile,
    }

    /// `#[tool(annotations(...))]`.
    #[derive(Debug)]
    pub struct AnnotationsSpec {
        pub title: Option<&'static str>,
        pub read_only: Option<bool>,
        pub destructive: Option<bool>,
        pub idempotent: Option<bool>,
        pub open_world: Option<bool>,
    }

    /// One `#[tool(icon(...))]`.
    #[derive(Debug)]
    pub struct IconSpec {
        pub src: &'static str,
        pub mime_type: Option<&'static str>,
        pub sizes: Option<&'static [&'static str]>,
        pub theme: Option<IconTheme>,
    }

    /// How to generate one schema, and the Rust type it comes from.
    #[derive(Clone, Copy)]
    pub struct SchemaOf {
        generate: fn(&SchemaProfile) -> ProfiledSchema,
        type_name: fn() -> &'static str,
    }

    impl fmt::Debug for SchemaOf {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_tuple("SchemaOf")
                .field(&(self.type_name)())
                .finish()
        }
    }

    impl SchemaOf {
        /// The input schema of `T` (deserialize contract); requires only [`InputSchema`].
        pub const fn input<T: InputSchema>() -> Self {
            Self {
                generate: SchemaProfile::input_schema::<T>,
                type_name: std::any::type_name::<T>,
            }
        }

        /// The input schema of a struct that is its own arguments; requires only
        /// [`OwnArgumentsSchema`], whose error says what to do for a handler with state.
        pub const fn own_input<T: OwnArgumentsSchema>() -> Self {
            Self {
                generate: SchemaProfile::input_schema::<T>,
                type_name: std::any::type_name::<T>,
            }
        }

        /// The output schema of `T` (serialize contract); requires only [`OutputSchema`].
        pub const fn output<T: OutputSchema>() -> Self {
            Self {
                generate: SchemaProfile::output_schema::<T>,
                type_name: std::any::type_name::<T>,
            }
        }

        /// [`NoArguments`]: exactly MCP's recommended empty-object schema, whatever the
        /// profile.
        pub const fn no_arguments() -> Self {
            fn generate(_: &SchemaProfile) -> ProfiledSchema {
                ProfiledSchema {
                    schema: ToolSchema::empty_object(),
                    description: None,
                }
            }
            Self {
                generate,
                type_name: std::any::type_name::<NoArguments>,
            }
        }
    }

    /// The static behind one derived tool: its [`Spec`] and what is built from it, once.
    ///
    /// It holds no function of the input or output type: those are the derive's `#[inline]`
    /// trait methods, which the compiler generates code for only where a tool is used, so
    /// defining a tool costs no more code than its `Deserialize` and `JsonSchema` impls.
    #[derive(Debug)]
    pub struct Definition {
        spec: Spec,
        tool: OnceLock<Result<Tool, Error>>,
        backend: OnceLock<Backend>,
        input_validator: OnceLock<Result<CompiledSchema, Error>>,
        output_validator: OnceLock<Result<Option<CompiledSchema>, Error>>,
    }

    /// A tool and its compiled schemas, kept by its [`Definition`] for the whole program.
    #[derive(Clone, Copy)]
    pub(crate) struct Compiled {
        /// The tool.
        pub(crate) tool: &'static Tool,
        /// Its compiled `inputSchema`.
        pub(crate) input: &'static CompiledSchema,
        /// Its compiled `outputSchema`, if it has one.
        pub(crate) output: Option<&'static CompiledSchema>,
    }

    /// The schema sources of a tool, as the trait methods give them.
    pub(crate) type InputSource = fn() -> SchemaOf;
    pub(crate) type OutputSource = fn() -> Option<SchemaOf>;

    impl Definition {
        pub const fn new(spec: Spec) -> Self {
            Self {
                spec,
                tool: OnceLock::new(),
                backend: OnceLock::new(),
                input_validator: OnceLock::new(),
                output_validator: OnceLock::new(),
            }
        }

        pub(crate) fn tool(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> Result<&'static Tool, Error> {
            self.tool
                .get_or_init(|| build(&self.spec, input(), output(), self.backend().clone()))
                .as_ref()
                .map_err(Clone::clone)
        }

        /// The built tool: one atomic load on the fast path.
        #[inline]
        pub(crate) fn built(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> &'static Tool {
            match self.tool.get() {
                Some(Ok(tool)) => tool,
                _ => self.build_or_panic(input, output),
            }
        }

        // The documented panic of `ToolDefinition::tool`: a type whose schema cannot be a tool's
        // is a programming error found on first use (`try_tool` returns it as an error).
        #[allow(clippy::panic)]
        #[cold]
        #[inline(never)]
        fn build_or_panic(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> &'static Tool {
            match self.tool(input, output) {
                Ok(tool) => tool,
                Err(err) => panic!("{err}"),
            }
        }

        /// The tool and both its compiled schemas, as a toolbox serves it: the errors of
        /// [`tool`](Self::tool), then of each validator.
        pub(crate) fn compiled(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> Result<Compiled, Error> {
            Ok(Compiled {
                tool: self.tool(input, output)?,
                input: self.input_validator(input, output)?,
                output: self.output_validator(input, output)?,
            })
        }

        pub(crate) fn backend(&'static self) -> &'static Backend {
            self.backend.get_or_init(|| Backend::local(self.spec.local))
        }

        pub(crate) fn input_validator(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> Result<&'static CompiledSchema, Error> {
            self.input_validator
                .get_or_init(|| {
                    let tool = self.tool(input, output)?;
                    DefaultValidator::new().compile(tool.input_schema.as_value())
                })
                .as_ref()
                .map_err(Clone::clone)
        }

        pub(crate) fn output_validator(
            &'static self,
            input: InputSource,
            output: OutputSource,
        ) -> Result<Option<&'static CompiledSchema>, Error> {
            self.output_validator
                .get_or_init(|| {
                    let tool = self.tool(input, output)?;
                    tool.output_schema
                        .as_ref()
                        .map(|schema| DefaultValidator::new().compile(schema.as_value()))
                        .transpose()
                })
                .as_ref()
                .map(Option::as_ref)
                .map_err(Clone::clone)
        }
    }

    /// Deserializes validated arguments (the derive's `__deserialize`); requires only
    /// [`InputDeserialize`], so a missing `Deserialize` is one error in its words.
    #[inline]
    pub fn deserialize<T: InputDeserialize>(arguments: &Value) -> Result<T, Error> {
        super::deserialize(arguments)
    }

    /// [`deserialize`] for a struct that is its own arguments; requires only
    /// [`OwnArgumentsDeserialize`], whose error says what to do for a handler with state.
    #[inline]
    pub fn deserialize_own<T: OwnArgumentsDeserialize>(arguments: &Value) -> Result<T, Error> {
        super::deserialize(arguments)
    }

    /// Serializes an output (the derive's `__serialize`); requires only [`OutputSerialize`].
    #[inline]
    pub fn serialize<T: OutputSerialize>(output: &T) -> Result<Value, Error> {
        crate::json::serialize(output)
    }

    /// Builds the tool of a spec: the schemas through the profile, the root checks, the
    /// fields.
    fn build(
        spec: &Spec,
        input_of: SchemaOf,
        output_of: Option<SchemaOf>,
        backend: Backend,
    ) -> Result<Tool, Error> {
        let mut problems = Vec::new();
        let input = (input_of.generate)(&spec.profile);
        check_root(&input.schema, input_of, &mut problems);
        // MCP 2026-07-28 allows any output schema; writing for an older version checks the
        // root then (`Tool::to_mcp_json_for`).
        let output = output_of.map(|of| (of.generate)(&spec.profile).schema);
        if !problems.is_empty() {
            return Err(Error::ToolType {
                tool: spec.name.to_owned(),
                problems,
            });
        }
        let mut tool = Tool::new(
            spec.name,
            with_headers(spec.name, input.schema, spec.headers)?,
        );
        tool.output_schema = output;
        tool.title = spec.title.map(str::to_owned);
        tool.description = spec
            .description
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
            .or(input.description);
        tool.namespace = spec.namespace.map(str::to_owned);
        tool.version = spec.version.map(str::to_owned);
        tool.tags = spec.tags.iter().map(|&tag| tag.to_owned()).collect();
        tool.category = spec.category.map(str::to_owned);
        tool.required_scopes = spec
            .required_scopes
            .iter()
            .map(|&scope| scope.to_owned())
            .collect();
        tool.timeout = spec.timeout_ms.map(std::time::Duration::from_millis);
        tool.annotations = spec.annotations.as_ref().map(|a| ToolAnnotations {
            title: a.title.map(str::to_owned),
            read_only_hint: a.read_only,
            destructive_hint: a.destructive,
            idempotent_hint: a.idempotent,
            open_world_hint: a.open_world,
            ..ToolAnnotations::default()
        });
        if !spec.icons.is_empty() {
            tool.icons = Some(spec.icons.iter().map(icon).collect());
        }
        tool.execution = spec.task_support.map(|task_support| ToolExecution {
            task_support: Some(task_support),
            ..ToolExecution::default()
        });
        tool.backends = vec![backend];
        tool.validate()?;
        Ok(tool)
    }

    /// The input schema with `x-mcp-header` on each property named in `headers`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTool`] with a [`Violation::Header`](crate::Violation::Header) when the
    /// schema has no such property
    /// ([`HeaderProblem::NoProperty`](crate::validate::violation::HeaderProblem::NoProperty)).
    fn with_headers(
        tool: &str,
        schema: ToolSchema,
        headers: &[(&str, &str)],
    ) -> Result<ToolSchema, Error> {
        if headers.is_empty() {
            return Ok(schema);
        }
        let mut value = schema.to_value();
        let mut violations = Vec::new();
        for (property, header) in headers {
            match value
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(*property))
                .and_then(Value::as_object_mut)
            {
                Some(object) => {
                    object.insert("x-mcp-header".into(), Value::from(*header));
                }
                None => violations.push(crate::validate::violation::Violation::Header {
                    pointer: format!(
                        "/inputSchema/properties/{}",
                        crate::pointer::escape_pointer_token(property)
                    ),
                    problem: crate::validate::violation::HeaderProblem::NoProperty,
                }),
            }
        }
        if !violations.is_empty() {
            return Err(Error::InvalidTool {
                name: tool.to_owned(),
                violations,
            });
        }
        ToolSchema::try_from(value)
    }

    fn icon(spec: &IconSpec) -> Icon {
        let mut icon = Icon::new(spec.src);
        icon.mime_type = spec.mime_type.map(str::to_owned);
        icon.sizes = spec
            .sizes
            .map(|sizes| sizes.iter().map(|&size| size.to_owned()).collect());
        icon.theme = spec.theme;
        icon
    }

    fn check_root(schema: &ToolSchema, of: SchemaOf, problems: &mut Vec<TypeProblem>) {
        if !schema.has_object_root() {
            problems.push(TypeProblem {
                slot: SchemaSlot::Input,
                type_name: (of.type_name)(),
                found: schema.get("type").map(ToString::to_string),
            });
        }
    }

    /// A [`SchemaProfile`] from the derive's `#[tool(schema(...))]` switches, in const context.
    pub const fn profile(
        keep_schema_uri: bool,
        keep_title: bool,
        keep_description: bool,
        keep_refs: bool,
        keep_integer_widths: bool,
        keep_formats: bool,
        keep_open_objects: bool,
    ) -> SchemaProfile {
        SchemaProfile {
            keep_schema_uri,
            keep_title,
            keep_description,
            keep_refs,
            keep_integer_widths,
            keep_formats,
            keep_open_objects,
        }
    }
}

use private::{Definition, SchemaOf};

/// Deserializes validated arguments. A whole number written as a float (`3.0`) where serde
/// expects an integer is read as that integer (JSON Schema 2020-12: `3.0` is an `integer`;
/// [`integer_valued`](super::integer_valued)); any other failure is an [`Error::Json`] at the
/// JSON Pointer of the value serde refused.
///
/// Every attempt reads through the same path-tracking deserializer
/// ([`from_value`](crate::json::from_value), `json/tracked.rs`), so that `T`'s `Deserialize` is
/// compiled for one deserializer, not one for the common path and one to find where an error
/// is; and that deserializer tracks the path in plain code, with no generic layer per type read,
/// so a type's `Deserialize` compiles against it about as it does against `serde_json`'s. At
/// hundreds of derived tools, either a second copy or `serde_path_to_error`'s layers were a
/// large share of the generated code (`cargo llvm-lines`, README "Compile cost"). Tracking
/// costs one small allocation per call, next to the schema validation before it.
pub(crate) fn deserialize<T: DeserializeOwned>(arguments: &Value) -> Result<T, Error> {
    crate::json::from_value(arguments)
        .or_else(|first| super::integer_valued::retry(arguments, first, crate::json::from_value))
}
