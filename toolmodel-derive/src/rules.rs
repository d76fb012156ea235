//! The runtime's rules, for compile-time checks: a small copy of `toolmodel`'s name, tag, icon,
//! theme, task-support, version, backend, category, scope and timeout rules (the derive cannot depend on `toolmodel`,
//! which depends on it).
//!
//! This file depends on nothing but `std` and `semver`, so that `tests/tests/derive_rules.rs`
//! includes it as is and holds it and the runtime to one table of cases.

/// The longest valid tool name (MCP 2025-11-25, "Tool Names").
pub const MAX_NAME_LEN: usize = 128;
/// The longest normalized tag.
pub const MAX_TAG_LEN: usize = 64;
/// The most tags a tool keeps.
pub const MAX_TAGS: usize = 20;
/// The icon `src` schemes MCP allows.
pub const ICON_SCHEMES: &[&str] = &["https", "http", "data"];
/// The values of `Icon.theme`.
pub const THEMES: &[&str] = &["light", "dark"];
/// The values of `ToolExecution.taskSupport`.
pub const TASK_SUPPORT: &[&str] = &["forbidden", "optional", "required"];
/// The longest category, in characters (the runtime's `MAX_CATEGORY_LEN`).
pub const MAX_CATEGORY_LEN: usize = 64;

/// Every problem of a tool name or namespace, in the runtime's words; empty when valid.
pub fn name_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut length = 0usize;
    for (position, ch) in name.chars().enumerate() {
        length += 1;
        if !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.')) {
            problems.push(format!(
                "character {ch:?} (U+{:04X}) at position {position} is not one of [A-Za-z0-9_.-]",
                u32::from(ch)
            ));
        }
    }
    if length == 0 {
        problems.push("it is empty".to_owned());
    } else if length > MAX_NAME_LEN {
        problems.insert(
            0,
            format!("it is {length} characters long (at most {MAX_NAME_LEN})"),
        );
    }
    problems
}

/// Why a version is not a semantic version (`1.2.3` or `v1.2.3`), or `None` when it is one.
pub fn version_problem(version: &str) -> Option<String> {
    let bare = version.strip_prefix('v').unwrap_or(version);
    semver::Version::parse(bare)
        .err()
        .map(|err| err.to_string())
}

/// One tag in normal form, or `None` when nothing is left of it: trimmed, lowercased, inner
/// whitespace runs as one `-`, only `[a-z0-9-_.]` kept, at most [`MAX_TAG_LEN`] characters.
pub fn normalize_tag(tag: &str) -> Option<String> {
    let mut out = String::with_capacity(tag.len().min(MAX_TAG_LEN));
    let mut pending_dash = false;
    for ch in tag.trim().chars().flat_map(char::to_lowercase) {
        if ch.is_whitespace() {
            pending_dash = true;
            continue;
        }
        if pending_dash {
            out.push('-');
            pending_dash = false;
        }
        if ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '-' | '_' | '.') {
            out.push(ch);
        }
    }
    out.truncate(MAX_TAG_LEN);
    (!out.is_empty()).then_some(out)
}

/// What is wrong with one tag of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagProblem {
    /// Nothing is left of it after normalization.
    Empty,
    /// Not in normal form; the normal form.
    NotNormal(String),
    /// The same as an earlier tag.
    Duplicate,
    /// Beyond the [`MAX_TAGS`]th.
    TooMany,
}

/// Every problem of a tag list, with the tag's index; empty exactly when the list is in normal
/// form (the runtime's `is_normalized`).
pub fn tag_problems<S: AsRef<str>>(tags: &[S]) -> Vec<(usize, TagProblem)> {
    let mut problems = Vec::new();
    for (index, tag) in tags.iter().enumerate() {
        let tag = tag.as_ref();
        let problem = match normalize_tag(tag) {
            None => Some(TagProblem::Empty),
            Some(normal) if normal != tag => Some(TagProblem::NotNormal(normal)),
            Some(_)
                if tags
                    .iter()
                    .take(index)
                    .any(|earlier| earlier.as_ref() == tag) =>
            {
                Some(TagProblem::Duplicate)
            }
            Some(_) if index >= MAX_TAGS => Some(TagProblem::TooMany),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            problems.push((index, problem));
        }
    }
    problems
}

/// The scheme of a URI (RFC 3986 `scheme ":"`), lowercased, when it has one.
pub fn uri_scheme(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

/// Returns `true` when an icon `src` uses a scheme MCP allows.
pub fn icon_src_allowed(src: &str) -> bool {
    uri_scheme(src).is_some_and(|scheme| ICON_SCHEMES.contains(&scheme.as_str()))
}

/// Returns `true` when a backend name (the local handler's) is acceptable: not blank.
pub fn backend_name_allowed(name: &str) -> bool {
    !name.trim().is_empty()
}

/// The first rule an `x-mcp-header` name breaks, in the runtime's words (MCP 2026-07-28,
/// Streamable HTTP, "Schema Extension": not empty, no control characters, RFC 9110 `1*tchar`).
pub fn header_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_owned());
    }
    let is_tchar = |ch: char| ch.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(ch);
    let (position, ch) = name.chars().enumerate().find(|(_, ch)| !is_tchar(*ch))?;
    Some(if ch.is_control() {
        format!(
            "holds the control character U+{:04X} at position {position}",
            u32::from(ch)
        )
    } else {
        format!(
            "holds {ch:?} at position {position}, not an RFC 9110 token character (letters, digits, !#$%&'*+-.^_`|~)"
        )
    })
}

/// The first rule a required scope breaks, in the runtime's words (RFC 6749 §3.3
/// `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`), or `None` for a valid one.
pub fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some(
            "is empty (RFC 6749 §3.3: a scope-token has at least one character)".to_owned(),
        );
    }
    let allowed = |ch: char| matches!(ch, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E');
    let (position, ch) = scope.chars().enumerate().find(|(_, ch)| !allowed(*ch))?;
    Some(format!(
        "holds {ch:?} (U+{:04X}) at position {position}, not an RFC 6749 §3.3 scope-token character (printable ASCII except space, '\"' and '\\')",
        u32::from(ch)
    ))
}

/// The first rule a category breaks, in the runtime's words (not empty, trimmed, no control
/// character, at most [`MAX_CATEGORY_LEN`] characters), or `None`.
pub fn category_problem(category: &str) -> Option<String> {
    if category.is_empty() {
        return Some("is empty".to_owned());
    }
    if category.trim() != category {
        return Some("starts or ends with whitespace".to_owned());
    }
    if let Some((position, ch)) = category.chars().enumerate().find(|(_, ch)| ch.is_control()) {
        return Some(format!(
            "holds the control character U+{:04X} at position {position}",
            u32::from(ch)
        ));
    }
    let length = category.chars().count();
    (length > MAX_CATEGORY_LEN)
        .then(|| format!("is {length} characters long (at most {MAX_CATEGORY_LEN})"))
}

/// A timeout as `#[tool(timeout = "...")]` writes it: a whole number followed by `ms`, `s` or
/// `m` (`"500ms"`, `"30s"`, `"2m"`), not zero; the result in milliseconds, or why not.
pub fn parse_timeout(text: &str) -> Result<u64, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        _ => {
            return Err(format!(
                "timeout {text:?} is not a whole number followed by `ms`, `s` or `m`; write e.g. \"500ms\", \"30s\" or \"2m\""
            ));
        }
    };
    if number.is_empty() {
        return Err(format!(
            "timeout {text:?} has no number before its unit; write e.g. \"30{unit}\""
        ));
    }
    let millis = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("timeout {text:?} is more milliseconds than a u64 holds"))?;
    if millis == 0 {
        return Err(format!(
            "timeout {text:?} is zero; a tool's timeout is at least 1ms (remove `timeout` for none)"
        ));
    }
    Ok(millis)
}
