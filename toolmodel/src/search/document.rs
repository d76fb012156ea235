//! What a tool is searched by: the texts of its fields, each tagged with the [`Field`] it
//! came from.

use serde_json::{Map, Value};

use crate::Tool;

/// The upstream MCP server a federated tool comes from: its name and description are searched
/// too, so "the GitHub tools" finds `github__create_issue`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Server<'a> {
    /// The server's name (`serverInfo.name`, or its key in the gateway's configuration).
    pub name: &'a str,
    /// The server's `instructions` or description, when it has one.
    pub description: Option<&'a str>,
}

/// Where a text of a tool comes from; rankers weigh fields differently (a word of a tool's
/// name says more than a word of a parameter's description).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Field {
    /// `name`, split into words at `_`, `-`, `.`, `/` and case changes.
    Name,
    /// `title`, or `annotations.title`.
    Title,
    /// `description`.
    Description,
    /// A property name of `inputSchema` (top level and one level of nested objects).
    ParameterName,
    /// A property's `description` and its `enum` strings in `inputSchema`.
    ParameterDescription,
    /// The tool's namespace, tags and category (toolmodel's own fields).
    Label,
    /// The upstream server's name ([`Server::name`]).
    ServerName,
    /// The upstream server's description ([`Server::description`]).
    ServerDescription,
}

impl Field {
    /// Every field, in declaration order.
    pub const ALL: [Field; 8] = [
        Field::Name,
        Field::Title,
        Field::Description,
        Field::ParameterName,
        Field::ParameterDescription,
        Field::Label,
        Field::ServerName,
        Field::ServerDescription,
    ];

    /// The field's position in [`Field::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Properties read per schema level, at most: a schema a stranger wrote cannot make indexing
/// walk without end.
const MAX_PARAMETERS: usize = 256;

/// One tool as a ranker sees it: its texts by field ([`Document::texts`]).
#[derive(Clone, Copy, Debug)]
pub struct Document<'a> {
    /// The tool (its `name` is the key it is searched and found by).
    pub tool: &'a Tool,
    /// The upstream server of a federated tool.
    pub server: Option<Server<'a>>,
}

impl<'a> Document<'a> {
    /// Calls `each` with every text of the tool and the field it belongs to: name, title,
    /// description, each parameter's name and description (top level and one level down),
    /// namespace, tags, category, and the server's name and description.
    pub fn texts(&self, each: &mut dyn FnMut(Field, &'a str)) {
        let tool = self.tool;
        each(Field::Name, &tool.name);
        if let Some(title) = &tool.title {
            each(Field::Title, title);
        } else if let Some(title) = tool.annotations.as_ref().and_then(|a| a.title.as_deref()) {
            each(Field::Title, title);
        }
        if let Some(description) = &tool.description {
            each(Field::Description, description);
        }
        parameters(tool.input_schema.as_object(), 1, each);
        for label in tool
            .namespace
            .iter()
            .chain(&tool.tags)
            .chain(&tool.category)
        {
            each(Field::Label, label);
        }
        if let Some(server) = self.server {
            each(Field::ServerName, server.name);
            if let Some(description) = server.description {
                each(Field::ServerDescription, description);
            }
        }
    }
}

fn parameters<'a>(
    schema: &'a Map<String, Value>,
    depth: usize,
    each: &mut dyn FnMut(Field, &'a str),
) {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (name, property) in properties.iter().take(MAX_PARAMETERS) {
        each(Field::ParameterName, name);
        let Value::Object(property) = property else {
            continue;
        };
        if let Some(Value::String(description)) = property.get("description") {
            each(Field::ParameterDescription, description);
        }
        // `"enum": ["celsius", "fahrenheit"]`: the values a model would name in a request.
        if let Some(Value::Array(values)) = property.get("enum") {
            for value in values.iter().take(MAX_PARAMETERS) {
                if let Value::String(value) = value {
                    each(Field::ParameterDescription, value);
                }
            }
        }
        if depth > 0 {
            parameters(property, depth - 1, each);
            if let Some(Value::Object(items)) = property.get("items") {
                parameters(items, depth - 1, each);
            }
        }
    }
}
