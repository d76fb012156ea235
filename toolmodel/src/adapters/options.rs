//! How to convert ([`ConvertOptions`]) and how to read back ([`ReadOptions`]).

/// The default of [`ConvertOptions::inline_budget`]: 100,000 JSON values, far beyond any real
/// tool schema (the largest in the MCP corpus inlines to a few thousand).
pub const DEFAULT_INLINE_BUDGET: usize = 100_000;

/// How to convert. Build with [`ConvertOptions::default`] and the `with_*` methods.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// Apply the target's strict transform and mark the tool strict (OpenAI `strict: true`,
    /// Anthropic `strict: true`). Only targets with [`Target::has_strict_mode`](crate::adapters::Target::has_strict_mode); others give
    /// [`Error::Conversion`](crate::Error::Conversion). Default `false`.
    pub strict: bool,
    /// Accept conversions that make a schema wider where the alternative is an error: a
    /// recursive reference replaced by an unconstrained schema, an `allOf` that cannot be
    /// merged dropped in strict mode, keywords next to a `$ref` that conflict with its target
    /// dropped. Each is a warning with [`Action::Dropped`](crate::adapters::Action::Dropped) `{ widened: true }`. Default `false`.
    pub allow_widening: bool,
    /// Gemini: send the input schema as `parametersJsonSchema` (and the output schema as
    /// `responseJsonSchema`), plain JSON Schema, instead of the OpenAPI subset of `parameters`.
    /// Default `false`.
    pub gemini_json_schema: bool,
    /// Write unsupported constraint keywords into the description of the schema object that
    /// held them ([`Action::MovedToDescription`](crate::adapters::Action::MovedToDescription)) rather than only dropping them. Default
    /// `true`.
    pub constraints_to_description: bool,
    /// Build each target name from `namespace.name` when the tool has a namespace (then mapped
    /// like any name), so that tools of several servers do not collide. Default `false`.
    pub qualified_names: bool,
    /// The most JSON values inlining local references may produce for one schema
    /// ([`Error::SchemaTooLarge`](crate::Error::SchemaTooLarge) beyond). Default [`DEFAULT_INLINE_BUDGET`].
    pub inline_budget: usize,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        Self {
            strict: false,
            allow_widening: false,
            gemini_json_schema: false,
            constraints_to_description: true,
            qualified_names: false,
            inline_budget: DEFAULT_INLINE_BUDGET,
        }
    }
}

impl ConvertOptions {
    /// Sets [`strict`](Self::strict).
    #[must_use]
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets [`allow_widening`](Self::allow_widening).
    #[must_use]
    pub fn with_allow_widening(mut self, allow: bool) -> Self {
        self.allow_widening = allow;
        self
    }

    /// Sets [`gemini_json_schema`](Self::gemini_json_schema).
    #[must_use]
    pub fn with_gemini_json_schema(mut self, json_schema: bool) -> Self {
        self.gemini_json_schema = json_schema;
        self
    }

    /// Sets [`constraints_to_description`](Self::constraints_to_description).
    #[must_use]
    pub fn with_constraints_to_description(mut self, move_them: bool) -> Self {
        self.constraints_to_description = move_them;
        self
    }

    /// Sets [`qualified_names`](Self::qualified_names).
    #[must_use]
    pub fn with_qualified_names(mut self, qualified: bool) -> Self {
        self.qualified_names = qualified;
        self
    }

    /// Sets [`inline_budget`](Self::inline_budget).
    #[must_use]
    pub fn with_inline_budget(mut self, budget: usize) -> Self {
        self.inline_budget = budget;
        self
    }
}

/// How to read a provider's tool JSON back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Map `type` names JSON Schema does not define (`dict`, `float`, `tuple`, `any`,
    /// `String`, `HashMap`, ...) to standard ones, with a warning each, instead of failing with
    /// [`Error::InvalidSchema`](crate::Error::InvalidSchema). Default `false`.
    pub lenient: bool,
}

impl ReadOptions {
    /// Sets [`lenient`](Self::lenient).
    #[must_use]
    pub fn with_lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }
}
