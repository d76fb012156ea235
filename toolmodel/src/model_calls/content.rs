//! What a provider's tool result can carry of a `CallToolResult`, block by block: the rule
//! for text versus `structuredContent`, and the description of what a provider cannot hold.

use std::borrow::Cow;

use serde_json::Value;

use super::provider::Provider;
use crate::call::content::{ContentBlock, ResourceContents};
use crate::call::result::CallToolResult;

/// One piece of a result, as a provider can take it.
#[derive(Debug)]
pub(crate) enum Piece<'a> {
    Text(Cow<'a, str>),
    /// Base64 image data and its MIME type.
    Image {
        mime: &'a str,
        data: &'a str,
    },
    /// Base64 file data, its MIME type and a file name.
    File {
        mime: &'a str,
        data: &'a str,
        name: &'a str,
    },
}

/// The image types Anthropic's `image` blocks take (`Base64ImageSourceParam.media_type`).
const ANTHROPIC_IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// Whether `provider` takes an image of type `mime` in a tool result.
fn takes_image(provider: Provider, mime: &str) -> bool {
    match provider {
        Provider::Anthropic => ANTHROPIC_IMAGES.contains(&mime),
        Provider::OpenAiResponses => mime.starts_with("image/"),
        Provider::OpenAiChat | Provider::Gemini => false,
    }
}

/// Whether `provider` takes a file in a tool result (OpenAI Responses `input_file`).
fn takes_files(provider: Provider) -> bool {
    provider == Provider::OpenAiResponses
}

/// The size of base64 data, in bytes.
fn decoded_len(data: &str) -> usize {
    data.len() / 4 * 3
}

/// The pieces of `result` for `provider`, in order.
///
/// The rule for text versus `structuredContent` (every provider): the `content` blocks are
/// sent; `structuredContent` is sent as its JSON text only when `content` is empty (MCP asks
/// tools that return structured content to put its JSON in a text block too, so sending both
/// would repeat it). Gemini builds its `response` object from `structuredContent` instead (see
/// [`answer`](super::answer)).
pub(crate) fn pieces(result: &CallToolResult, provider: Provider) -> Vec<Piece<'_>> {
    let mut out = Vec::with_capacity(result.content.len().max(1));
    for block in &result.content {
        out.push(piece(block, provider));
    }
    if out.is_empty()
        && let Some(structured) = &result.structured_content
    {
        out.push(Piece::Text(Cow::Owned(structured.to_string())));
    }
    out
}

fn piece(block: &ContentBlock, provider: Provider) -> Piece<'_> {
    match block {
        ContentBlock::Text(text) => Piece::Text(Cow::Borrowed(&text.text)),
        ContentBlock::Image(image) if takes_image(provider, &image.mime_type) => Piece::Image {
            mime: &image.mime_type,
            data: &image.data,
        },
        ContentBlock::Image(image) => Piece::Text(Cow::Owned(format!(
            "[{} image of {} bytes, not shown: {provider} tool results do not carry it]",
            image.mime_type,
            decoded_len(&image.data)
        ))),
        ContentBlock::Audio(audio) => Piece::Text(Cow::Owned(format!(
            "[{} audio of {} bytes, not played: {provider} tool results do not carry audio]",
            audio.mime_type,
            decoded_len(&audio.data)
        ))),
        ContentBlock::ResourceLink(link) => {
            let mut text = format!("[resource link: {}", link.uri);
            if let Some(title) = &link.title {
                text.push_str(&format!(" \"{title}\""));
            } else {
                text.push_str(&format!(" ({})", link.name));
            }
            if let Some(mime) = &link.mime_type {
                text.push_str(&format!(", {mime}"));
            }
            if let Some(description) = &link.description {
                text.push_str(&format!(": {description}"));
            }
            text.push(']');
            Piece::Text(Cow::Owned(text))
        }
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Text(resource) => Piece::Text(Cow::Owned(format!(
                "[resource {}{}]\n{}",
                resource.uri,
                resource
                    .mime_type
                    .as_deref()
                    .map(|mime| format!(", {mime}"))
                    .unwrap_or_default(),
                resource.text
            ))),
            ResourceContents::Blob(blob) => {
                let mime = blob
                    .mime_type
                    .as_deref()
                    .unwrap_or("application/octet-stream");
                if takes_image(provider, mime) {
                    Piece::Image {
                        mime,
                        data: &blob.blob,
                    }
                } else if takes_files(provider) {
                    Piece::File {
                        mime,
                        data: &blob.blob,
                        name: file_name(&blob.uri),
                    }
                } else {
                    Piece::Text(Cow::Owned(format!(
                        "[resource {}, {mime} of {} bytes, not shown: {provider} tool results do not carry it]",
                        blob.uri,
                        decoded_len(&blob.blob)
                    )))
                }
            }
        },
    }
}

/// The last segment of a URI, as a file name (`file`, when it has none).
fn file_name(uri: &str) -> &str {
    uri.rsplit(['/', ':'])
        .find(|segment| !segment.is_empty())
        .unwrap_or("file")
}

/// The text of the pieces, one per line (a non-text piece, which `provider` carries, is
/// not in it). One text piece is moved out as it is.
pub(crate) fn joined_text(pieces: Vec<Piece<'_>>) -> String {
    let mut texts = pieces.into_iter().filter_map(|piece| match piece {
        Piece::Text(part) => Some(part),
        _ => None,
    });
    let mut text = texts.next().map(Cow::into_owned).unwrap_or_default();
    for part in texts {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&part);
    }
    text
}

/// A `data:` URL of base64 data.
pub(crate) fn data_url(mime: &str, data: &str) -> Value {
    Value::String(format!("data:{mime};base64,{data}"))
}
