//! [`Warning`]: one thing a conversion changed, and [`Action`]: what it did.

use std::{borrow::Cow, fmt};

use super::target::Target;
use crate::validate::violation::SchemaSlot;

/// What a conversion did about a feature the target cannot hold as it is.
///
/// "Wider" means the converted schema accepts instances the original rejects (a constraint is
/// gone); the model may then send arguments the tool's own schema refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Action {
    /// Removed from the output. `widened` is `true` when a constraint was removed (the schema
    /// now accepts more), `false` for annotations and tool-level data (a title, an icon, ...).
    Dropped {
        /// Whether the schema got wider.
        widened: bool,
    },
    /// Replaced by another form. `exact` is `true` when the new form accepts exactly the same
    /// instances (`const` to a one-value `enum`, a local `$ref` inlined, `oneOf` to `anyOf`
    /// over branches that cannot overlap, a tool renamed through the returned name map);
    /// `false` when it does not and may accept instances the original rejects (strict mode
    /// making an optional property required and nullable, `oneOf` to `anyOf` over branches
    /// that may overlap).
    Rewritten {
        /// Whether the new form is equivalent.
        exact: bool,
    },
    /// Replaced by a form that accepts only instances the original accepts, and not all of
    /// them (strict mode closing an object with `additionalProperties: false`): the model can
    /// no longer send some arguments the tool takes, and nothing the tool refuses gets through.
    Narrowed,
    /// Removed from the schema and written into the `description` of the schema object that
    /// held it, as JSON text, so that the model still reads it; the schema got wider.
    MovedToDescription,
    /// Left in the output unchanged although the target does not support it: the provider
    /// ignores it (`widened`: the effective schema is wider) or may reject the tool.
    Unsupported {
        /// Whether ignoring it makes the schema wider.
        widened: bool,
    },
}

impl Action {
    /// Whether the converted schema may accept instances the original rejects.
    #[must_use]
    pub const fn widens(self) -> bool {
        match self {
            Self::Dropped { widened } | Self::Unsupported { widened } => widened,
            Self::Rewritten { exact } => !exact,
            Self::Narrowed => false,
            Self::MovedToDescription => true,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Dropped { widened: true } => "dropped (schema wider)",
            Self::Dropped { widened: false } => "dropped",
            Self::Rewritten { exact: true } => "rewritten (equivalent)",
            Self::Rewritten { exact: false } => "rewritten (not equivalent)",
            Self::Narrowed => "rewritten (schema narrower)",
            Self::MovedToDescription => "moved to description (schema wider)",
            Self::Unsupported { widened: true } => {
                "kept, unsupported by the target (ignored: schema wider)"
            }
            Self::Unsupported { widened: false } => "kept, unsupported by the target",
        })
    }
}

/// One change a conversion made (or, reading, one lenient mapping), with where and what.
///
/// Warnings sort (the derived [`Ord`]) by target, then pointer, then feature, then action and
/// detail; conversions return them sorted and without duplicates, so their order is
/// deterministic.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Warning {
    /// The target converted to (or read from).
    pub target: Target,
    /// Where: an RFC 6901 JSON Pointer (each token escaped, `~` as `~0` and `/` as `~1`). When
    /// converting, it points into the tool's full JSON ([`Tool::to_json`](crate::Tool::to_json)):
    /// `/title`, `/inputSchema/properties/a~1b/const`, `/outputSchema/...`; when reading, into
    /// the document read.
    pub pointer: String,
    /// The feature: a JSON Schema keyword (`oneOf`, `$ref`, `minLength`, ...), a tool field
    /// (`title`, `annotations`, `outputSchema`, `name`, ...) or an unknown key. Borrowed when
    /// it is one of the names the adapters know (most are), so that a conversion does not
    /// allocate it.
    pub feature: Cow<'static, str>,
    /// What was done.
    pub action: Action,
    /// Which schema the pointer is in, when it is in one: the input schema or the output schema.
    pub slot: Option<SchemaSlot>,
    /// A sentence for people: what the target lacks and what was written instead. Borrowed
    /// when it is a fixed sentence.
    pub detail: Cow<'static, str>,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{}: {at}: {}: {}: {}",
            self.target, self.feature, self.action, self.detail
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_target_then_pointer() {
        let make = |target, pointer: &str, feature: &str| Warning {
            target,
            pointer: pointer.into(),
            feature: feature.to_owned().into(),
            action: Action::Dropped { widened: false },
            slot: None,
            detail: "".into(),
        };
        let mut list = [
            make(Target::Gemini, "/a", "x"),
            make(Target::OpenAiChat, "/b", "x"),
            make(Target::OpenAiChat, "/a", "y"),
            make(Target::OpenAiChat, "/a", "x"),
        ];
        list.sort();
        let keys: Vec<_> = list
            .iter()
            .map(|w| (w.target, w.pointer.as_str(), &*w.feature))
            .collect();
        assert_eq!(
            keys,
            [
                (Target::OpenAiChat, "/a", "x"),
                (Target::OpenAiChat, "/a", "y"),
                (Target::OpenAiChat, "/b", "x"),
                (Target::Gemini, "/a", "x"),
            ]
        );
        assert!(Action::MovedToDescription.widens());
        assert!(!Action::Rewritten { exact: true }.widens());
        assert!(!Action::Narrowed.widens());
        assert!(Action::Rewritten { exact: false }.widens());
        assert_eq!(list[0].to_string(), "openai-chat: /a: x: dropped: ");
    }
}
