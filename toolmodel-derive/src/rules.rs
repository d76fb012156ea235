//! The runtime's rules, for compile-time checks: a small copy of `toolmodel`'s name, tag, icon,
//! theme, task-support, version and backend rules (the derive cannot depend on `toolmodel`,
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
