//! Reading a schema found in a provider's tool JSON back into a [`ToolSchema`].

use serde_json::Value;

use crate::adapters::context::{Ctx, check_depth};
use crate::adapters::lenient;
use crate::adapters::options::{ConvertOptions, ReadOptions};
use crate::adapters::target::Target;
use crate::adapters::warning::Warning;
use crate::error::Error;
use crate::json::json_error;
use crate::model::schema::{ToolSchema, json_type};
use crate::validate::violation::SchemaSlot;

/// Reads a schema found at `pointer` of a provider document: an object, checked (or mapped,
/// leniently) for standard `type` names.
pub(crate) fn read_schema(
    target: Target,
    value: &Value,
    pointer: &str,
    slot: SchemaSlot,
    options: &ReadOptions,
    warnings: &mut Vec<Warning>,
) -> Result<ToolSchema, Error> {
    if !value.is_object() {
        return Err(json_error(
            pointer,
            format!(
                "a tool schema must be a JSON object, found {}",
                json_type(value)
            ),
        ));
    }
    check_depth(value, pointer)?;
    let mut schema = value.clone();
    let convert_options = ConvertOptions::default();
    let mut ctx = Ctx::new(target, &convert_options, Some(slot), pointer, warnings);
    lenient::standard_types(&mut schema, options.lenient, &mut ctx)?;
    ToolSchema::try_from(schema)
}
