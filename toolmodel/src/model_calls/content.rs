//! What a provider's tool result can carry of a `CallToolResult`, block by block: the rule
//! for text versus `structuredContent`, and the description of what a provider cannot hold.
//! Pieces are made as they are written: nothing is copied but the descriptions.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use serde::{Serialize, Serializer};

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

/// The pieces of `result` for `provider`, in order, made as they are read.
///
/// The rule for text versus `structuredContent` (every provider): the `content` blocks are
/// sent; `structuredContent` is sent as its JSON text only when `content` is empty (MCP asks
/// tools that return structured content to put its JSON in a text block too, so sending both
/// would repeat it). Gemini builds its `response` object from `structuredContent` instead (see
/// [`answer`](super::answer)).
pub(crate) fn pieces(
    result: &CallToolResult,
    provider: Provider,
) -> impl Iterator<Item = Piece<'_>> + Clone {
    let structured = if result.content.is_empty() {
        result.structured_content.as_ref()
    } else {
        None
    };
    result
        .content
        .iter()
        .map(move |block| piece(block, provider))
        .chain(
            structured
                .into_iter()
                .map(|structured| Piece::Text(Cow::Owned(structured.to_string()))),
        )
}

/// Whether every piece of `result` is text for `provider` (nothing it takes as an image or a
/// file): decided from the blocks, without writing the descriptions.
pub(crate) fn all_text(result: &CallToolResult, provider: Provider) -> bool {
    !result.content.iter().any(|block| is_media(block, provider))
}

/// Whether `provider` takes `block` as an image or a file: [`piece`] gives
/// [`Piece::Image`] or [`Piece::File`] for exactly these blocks.
fn is_media(block: &ContentBlock, provider: Provider) -> bool {
    match block {
        ContentBlock::Image(image) => takes_image(provider, &image.mime_type),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Blob(blob) => {
                takes_image(provider, blob_mime(blob)) || takes_files(provider)
            }
            ResourceContents::Text(_) => false,
        },
        _ => false,
    }
}

/// The MIME type of a blob, `application/octet-stream` when it has none.
fn blob_mime(blob: &crate::call::content::BlobResourceContents) -> &str {
    blob.mime_type
        .as_deref()
        .unwrap_or("application/octet-stream")
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
                let mime = blob_mime(blob);
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

/// The text pieces of a result, one per line, after `prefix` (a non-text piece, which the
/// provider carries, is not in it): written where it goes, as a JSON string when serialized.
#[derive(Clone, Copy)]
pub(crate) struct TextLines<'a> {
    pub(crate) result: &'a CallToolResult,
    pub(crate) provider: Provider,
    /// `Error: ` for an `isError` result where the provider has no error flag, else `""`.
    pub(crate) prefix: &'static str,
}

impl fmt::Display for TextLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix)?;
        // A line break goes between pieces once some text is written (an empty first piece
        // adds none).
        let mut written = false;
        for piece in pieces(self.result, self.provider) {
            if let Piece::Text(part) = piece {
                if written {
                    f.write_char('\n')?;
                }
                f.write_str(&part)?;
                written |= !part.is_empty();
            }
        }
        Ok(())
    }
}

impl Serialize for TextLines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The common result, one text block and no prefix, is the string itself; anything
        // else goes through `Display`, escaped as it is written.
        if self.prefix.is_empty()
            && let [ContentBlock::Text(text)] = self.result.content.as_slice()
        {
            return serializer.serialize_str(&text.text);
        }
        serializer.collect_str(self)
    }
}

/// A `data:` URL of base64 data, written where it goes.
#[derive(Clone, Copy)]
pub(crate) struct DataUrl<'a> {
    pub(crate) mime: &'a str,
    pub(crate) data: &'a str,
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("data:{};base64,{}", self.mime, self.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::content::{
        BlobResourceContents, EmbeddedResource, ImageContent, TextResourceContents,
    };

    /// One block of every kind the providers treat differently.
    fn blocks() -> Vec<ContentBlock> {
        let blob = |mime: Option<&str>| {
            let mut blob = BlobResourceContents::from_bytes("file:///r/x.bin", b"abc");
            blob.mime_type = mime.map(str::to_owned);
            ContentBlock::Resource(EmbeddedResource::new(blob))
        };
        vec![
            ContentBlock::text("a"),
            ContentBlock::Image(ImageContent::from_bytes(b"abc", "image/png")),
            ContentBlock::Image(ImageContent::from_bytes(b"abc", "image/bmp")),
            ContentBlock::Resource(EmbeddedResource::new(ResourceContents::Text(
                TextResourceContents::new("file:///r/t.txt", "t"),
            ))),
            blob(Some("image/png")),
            blob(Some("application/pdf")),
            blob(None),
        ]
    }

    #[test]
    fn media_is_decided_as_the_pieces_are_made() {
        for provider in Provider::ALL {
            for block in blocks() {
                let text = matches!(piece(&block, provider), Piece::Text(_));
                assert_eq!(is_media(&block, provider), !text, "{provider}: {block:?}");
            }
        }
    }

    #[test]
    fn text_lines_join_the_text_pieces() {
        let result = CallToolResult {
            content: vec![
                ContentBlock::text(""),
                ContentBlock::text("a"),
                ContentBlock::text(""),
                ContentBlock::text("b"),
            ],
            ..CallToolResult::default()
        };
        let lines = |prefix| {
            TextLines {
                result: &result,
                provider: Provider::OpenAiChat,
                prefix,
            }
            .to_string()
        };
        assert_eq!(lines(""), "a\n\nb");
        assert_eq!(lines("Error: "), "Error: a\n\nb");
        assert_eq!(
            serde_json::to_string(&TextLines {
                result: &result,
                provider: Provider::Gemini,
                prefix: ""
            })
            .unwrap(),
            "\"a\\n\\nb\""
        );
    }
}
