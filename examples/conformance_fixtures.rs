//! The prompts, resources and completion the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) asks a server for, as an `rmcp` [`ServerHandler`]
//! that `examples/conformance_server.rs` composes with its toolbox
//! ([`ToolboxServer::with_handler`](toolmodel_rmcp::ToolboxServer::with_handler)).
//!
//! Each fixture is what a scenario of `modelcontextprotocol/conformance` expects
//! (`src/scenarios/server/prompts.ts`, `resources.ts`, `utils.ts` for `completion-complete`,
//! `caching.ts` for the `ttlMs`/`cacheScope` hints of SEP-2549, and
//! `input-required-result.ts` for `test_input_required_result_prompt`, a prompt that asks the
//! client for input by a multi round-trip request, SEP-2322).

use serde_json::{Value, json};
use toolmodel_rmcp::rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CacheScope, CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
        GetPromptResponse, GetPromptResult, InputRequest, InputRequests, InputRequiredResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
        PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
        ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
        ResourceTemplate, Role, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};

/// A 1x1 red PNG, base64 (the suite's own test image).
pub const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// How long a client may keep a list or read result of these fixtures, which never change:
/// one minute, for anyone (SEP-2549 `ttlMs` and `cacheScope`).
const TTL_MS: u64 = 60_000;

/// The prompt that asks for input by a multi round-trip request, and the key of its one
/// input request.
const INPUT_PROMPT: &str = "test_input_required_result_prompt";
const INPUT_KEY: &str = "user_context";

/// The conformance suite's prompts, resources and completion, for composing with a toolbox.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fixtures;

fn prompts() -> Vec<Prompt> {
    let required = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(true)
    };
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("A simple prompt without arguments"),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt with two required arguments"),
            Some(vec![
                required("arg1", "First test argument"),
                required("arg2", "Second test argument"),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt that embeds a resource"),
            Some(vec![required(
                "resourceUri",
                "URI of the resource to embed",
            )]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("A prompt with an image"),
            None,
        ),
        Prompt::new(
            INPUT_PROMPT,
            Some("A prompt that asks the user for its context first (2026-07-28)"),
            None,
        ),
    ]
}

/// A prompt argument, or `-32602` naming the one missing.
fn argument<'a>(request: &'a GetPromptRequestParams, name: &str) -> Result<&'a str, ErrorData> {
    request
        .arguments
        .as_ref()
        .and_then(|arguments| arguments.get(name))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "prompt {:?} needs the string argument {name:?}",
                    request.name
                ),
                None,
            )
        })
}

/// `test_input_required_result_prompt`: without an answer, an `InputRequiredResult` asking
/// for the user's context (`elicitation/create`); with one, the prompt.
fn input_prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
    let answer = request
        .input_responses
        .as_ref()
        .and_then(|responses| responses.get(INPUT_KEY));
    if let Some(answer) = answer {
        let context = answer
            .pointer("/content/context")
            .and_then(Value::as_str)
            .unwrap_or("(none given)");
        return Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Prompt with context: {context}"),
        )])
        .into());
    }
    let elicit: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "message": "What context should the prompt use?",
            "requestedSchema": {
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"]
            }
        }
    }))
    .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    let requests = InputRequests::from([(INPUT_KEY.to_owned(), elicit)]);
    Ok(InputRequiredResult::from_input_requests(requests).into())
}

fn resources() -> Vec<Resource> {
    vec![
        Resource::new("test://static-text", "static-text")
            .with_description("A static text resource")
            .with_mime_type("text/plain"),
        Resource::new("test://static-binary", "static-binary")
            .with_description("A static binary resource (a 1x1 PNG)")
            .with_mime_type("image/png"),
    ]
}

const TEMPLATE: &str = "test://template/{id}/data";

/// The `{id}` of a URI of [`TEMPLATE`].
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The values offered for `partial` (those that start with it), out of `candidates`.
fn complete_from(candidates: &[&str], partial: &str) -> Vec<String> {
    candidates
        .iter()
        .filter(|candidate| candidate.starts_with(partial))
        .map(|candidate| (*candidate).to_owned())
        .collect()
}

impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_completions()
                .build(),
        )
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts())
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (argument(&request, "arg1")?, argument(&request, "arg2")?);
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
                )]
            }
            "test_prompt_with_embedded_resource" => {
                let uri = argument(&request, "resourceUri")?;
                vec![
                    PromptMessage::new_resource(
                        Role::User,
                        uri.to_owned(),
                        Some("text/plain".to_owned()),
                        Some("Embedded resource content for testing.".to_owned()),
                        None,
                        None,
                        None,
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ]
            }
            "test_prompt_with_image" => vec![
                // rmcp's `PromptMessage::new_image` takes the bytes; the suite's image is base64.
                serde_json::from_value(json!({
                    "role": "user",
                    "content": {"type": "image", "data": RED_PIXEL_PNG, "mimeType": "image/png"}
                }))
                .map_err(|err| ErrorData::internal_error(err.to_string(), None))?,
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
            INPUT_PROMPT => return input_prompt(&request),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown prompt {other:?}"),
                    Some(json!({"name": other})),
                ));
            }
        };
        Ok(GetPromptResult::new(messages).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources())
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(TEMPLATE, "template-data")
            .with_description("JSON data for an ID")
            .with_mime_type("application/json");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template])
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let contents = match uri {
            "test://static-text" => {
                ResourceContents::text("This is the content of the static text resource.", uri)
                    .with_mime_type("text/plain")
            }
            "test://static-binary" => {
                ResourceContents::blob(RED_PIXEL_PNG, uri).with_mime_type("image/png")
            }
            _ => match template_id(uri) {
                Some(id) => {
                    let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                    ResourceContents::text(data.to_string(), uri).with_mime_type("application/json")
                }
                // MCP: -32002 before 2026-07-28; rmcp sends -32602 to 2026-07-28 clients
                // (SEP-2164). The URI goes in `data`.
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!("no resource {uri}"),
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        Ok(ReadResourceResult::new(vec![contents])
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public)
            .into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let partial = request.argument.value.as_str();
        let values = match (&request.r#ref, request.argument.name.as_str()) {
            (Reference::Prompt(prompt), "arg1" | "arg2")
                if prompt.name == "test_prompt_with_arguments" =>
            {
                complete_from(&["paris", "park", "party", "test", "testValue1"], partial)
            }
            (Reference::Resource(template), "id") if template.uri == TEMPLATE => {
                complete_from(&["1", "2", "123"], partial)
            }
            _ => Vec::new(),
        };
        let completion = CompletionInfo::with_all_values(values)
            .map_err(|err| ErrorData::internal_error(err, None))?;
        Ok(CompleteResult::new(completion))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_uris_give_their_id() {
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert_eq!(template_id("test://template/1/2/data"), None);
        assert_eq!(template_id("test://static-text"), None);
    }

    #[test]
    fn completion_keeps_the_values_with_the_prefix() {
        assert_eq!(
            complete_from(&["paris", "park", "test"], "par"),
            ["paris", "park"]
        );
        assert!(complete_from(&["paris"], "x").is_empty());
    }
}
