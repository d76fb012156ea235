//! What each strict mode supports: the keywords ([`Kw`]), formats and limits OpenAI and
//! Anthropic document, and what a [`Provider`] says of a keyword ([`Says`]).

/// Whether OpenAI strict mode takes `keyword`: OpenAI Structured Outputs, "Supported schemas"
/// (platform.openai.com/docs/guides/structured-outputs, read 2026-11-21): types string, number,
/// boolean, integer, object, array, enum, anyOf (and null through type lists or anyOf); string
/// `pattern`, `format`; number `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
/// `exclusiveMinimum`; array `minItems`, `maxItems`; definitions (`$defs`) and references
/// (`$ref`, recursion included); `additionalProperties` must be `false`; every property
/// `required`. Not supported: `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`,
/// `then`, `else` (and, by omission from the supported list, every other keyword). `title` and
/// `description` are annotations the API takes; `const` counts against the documented size
/// limits, so it is supported.
pub(super) fn openai_supports(keyword: Kw) -> bool {
    !matches!(
        keyword,
        Kw::AllOf | Kw::OneOf | Kw::Not | Kw::Default | Kw::Other
    )
}

/// OpenAI Structured Outputs string formats (same source and date).
pub(super) const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI Structured Outputs size limits (same source and date): object properties in total,
/// levels of object nesting, enum values in total.
pub(super) const OPENAI_MAX_PROPERTIES: usize = 5000;

pub(super) const OPENAI_MAX_NESTING: usize = 10;

pub(super) const OPENAI_MAX_ENUM_VALUES: usize = 1000;

/// Whether Anthropic strict tool use takes `keyword`: what `transform_schema`
/// (anthropic-sdk-python, `lib/_parse/_transform.py`, read 2026-11-21) keeps, plus `const`
/// (documented as supported): `type`, `enum` (primitive values), `anyOf`, `oneOf` (as `anyOf`),
/// `allOf`, `$ref`, `$defs`, `properties`, `required`, `additionalProperties: false`, `items`,
/// `minItems` 0 or 1, `format` (listed below), `title`, `description`; `pattern` per the
/// documentation (no backreferences, lookaround or word boundaries). Everything else is moved
/// into the description, `default` included.
pub(super) fn anthropic_supports(keyword: Kw) -> bool {
    !matches!(
        keyword,
        Kw::OneOf
            | Kw::Not
            | Kw::MultipleOf
            | Kw::Maximum
            | Kw::ExclusiveMaximum
            | Kw::Minimum
            | Kw::ExclusiveMinimum
            | Kw::MaxItems
            | Kw::Default
            | Kw::Other
    )
}

/// The keywords the strict steps tell apart, each spelled once ([`Kw::of`]) so that a schema
/// object's keys are compared as strings once per pass.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kw {
    Type,
    Enum,
    Const,
    AnyOf,
    AllOf,
    OneOf,
    Not,
    Ref,
    Defs,
    Definitions,
    Properties,
    Required,
    AdditionalProperties,
    Items,
    Title,
    Description,
    Pattern,
    Format,
    MultipleOf,
    Maximum,
    ExclusiveMaximum,
    Minimum,
    ExclusiveMinimum,
    MinItems,
    MaxItems,
    Default,
    /// Any other keyword, which neither provider takes.
    Other,
}

impl Kw {
    pub(super) fn of(keyword: &str) -> Self {
        match keyword {
            "type" => Self::Type,
            "enum" => Self::Enum,
            "const" => Self::Const,
            "anyOf" => Self::AnyOf,
            "allOf" => Self::AllOf,
            "oneOf" => Self::OneOf,
            "not" => Self::Not,
            "$ref" => Self::Ref,
            "$defs" => Self::Defs,
            "definitions" => Self::Definitions,
            "properties" => Self::Properties,
            "required" => Self::Required,
            "additionalProperties" => Self::AdditionalProperties,
            "items" => Self::Items,
            "title" => Self::Title,
            "description" => Self::Description,
            "pattern" => Self::Pattern,
            "format" => Self::Format,
            "multipleOf" => Self::MultipleOf,
            "maximum" => Self::Maximum,
            "exclusiveMaximum" => Self::ExclusiveMaximum,
            "minimum" => Self::Minimum,
            "exclusiveMinimum" => Self::ExclusiveMinimum,
            "minItems" => Self::MinItems,
            "maxItems" => Self::MaxItems,
            "default" => Self::Default,
            _ => Self::Other,
        }
    }
}

/// Anthropic strict string formats (`SupportedStringFormats` in the same file).
pub(super) const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Provider {
    OpenAi,
    Anthropic,
}

impl Provider {
    pub(super) fn supports(self, keyword: &str) -> bool {
        self.takes(Kw::of(keyword))
    }

    pub(super) fn takes(self, keyword: Kw) -> bool {
        match self {
            Self::OpenAi => openai_supports(keyword),
            Self::Anthropic => anthropic_supports(keyword),
        }
    }

    pub(super) const fn formats(self) -> &'static [&'static str] {
        match self {
            Self::OpenAi => OPENAI_FORMATS,
            Self::Anthropic => ANTHROPIC_FORMATS,
        }
    }

    pub(super) const fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI strict mode",
            Self::Anthropic => "Anthropic strict tool use",
        }
    }

    /// The sentence of a warning, "`<the provider's name> <what>`", spelled once per provider
    /// so that the warning borrows it.
    pub(super) const fn says(self, what: Says) -> &'static str {
        match (self, what) {
            (Self::OpenAi, Says::NoDefault) => "OpenAI strict mode does not take default",
            (Self::OpenAi, Says::NoKeyword) => "OpenAI strict mode does not take this keyword",
            (Self::OpenAi, Says::Unsupported) => "OpenAI strict mode does not support this keyword",
            (Self::OpenAi, Says::NoFormat) => "OpenAI strict mode does not support this format",
            (Self::Anthropic, Says::NoDefault) => "Anthropic strict tool use does not take default",
            (Self::Anthropic, Says::NoKeyword) => {
                "Anthropic strict tool use does not take this keyword"
            }
            (Self::Anthropic, Says::Unsupported) => {
                "Anthropic strict tool use does not support this keyword"
            }
            (Self::Anthropic, Says::NoFormat) => {
                "Anthropic strict tool use does not support this format"
            }
        }
    }
}

/// What a warning of the strict transform says ([`Provider::says`]).
#[derive(Clone, Copy)]
pub(super) enum Says {
    NoDefault,
    NoKeyword,
    Unsupported,
    NoFormat,
}
