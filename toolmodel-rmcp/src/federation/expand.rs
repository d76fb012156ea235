//! Variables in configuration strings: `${VAR}`, `${VAR:-default}` and `${env:VAR}`.
//!
//! The forms are those of the configuration files clients share: `${VAR}` and
//! `${VAR:-default}` (Claude Code's `.mcp.json`, after POSIX shell parameter expansion: the
//! default is used when the variable is unset or empty), and `${env:VAR}` (VS Code's
//! `mcp.json`). A `$` not followed by `{` is kept as it is. An unset variable without a default,
//! an unterminated `${`, a bad variable name and VS Code's `${input:...}` prompts (nothing
//! here can prompt) are errors.

/// Where variables are read: the process environment, or a map in tests.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Why a string could not be expanded: the message names the variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExpandError(pub(crate) String);

/// `text` with every `${...}` replaced by its value from `env`.
///
/// # Errors
///
/// [`ExpandError`] naming the variable or the bad form.
#[cfg(test)]
pub(crate) fn expand(text: &str, env: Env<'_>) -> Result<String, ExpandError> {
    expand_into(text, env, &mut Vec::new())
}

/// `text` with every `${...}` replaced by its value from `env`; each value read from `env`
/// (not a default written in `text`) is pushed to `read`: the values a configuration did not
/// spell out, which are kept out of its error messages.
///
/// # Errors
///
/// [`ExpandError`] naming the variable or the bad form.
pub(crate) fn expand_into(
    text: &str,
    env: Env<'_>,
    read: &mut Vec<String>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let body_and_rest = after.get(2..).unwrap_or_default();
        let Some(end) = body_and_rest.find('}') else {
            return Err(ExpandError(format!("unterminated \"${{\" in {text:?}")));
        };
        let (body, tail) = body_and_rest.split_at(end);
        let (value, from_env) = value_of(body, env)?;
        out.push_str(&value);
        if from_env {
            read.push(value);
        }
        rest = tail.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one `${body}`, and whether it was read from `env` (not the default).
fn value_of(body: &str, env: Env<'_>) -> Result<(String, bool), ExpandError> {
    if let Some(prompt) = body.strip_prefix("input:") {
        return Err(ExpandError(format!(
            "\"${{input:{prompt}}}\" asks the user for a value, which a gateway cannot do: set it with an environment variable"
        )));
    }
    let (name, default) = match body.strip_prefix("env:") {
        Some(name) => (name, None),
        None => match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        },
    };
    if !is_variable_name(name) {
        return Err(ExpandError(format!(
            "\"${{{body}}}\" is not a variable: names are letters, digits and '_', not starting with a digit"
        )));
    }
    match (env(name), default) {
        (Some(value), Some(default)) if value.is_empty() => Ok((default.to_owned(), false)),
        (Some(value), _) => Ok((value, true)),
        (None, Some(default)) => Ok((default.to_owned(), false)),
        (None, None) => Err(ExpandError(format!(
            "environment variable {name} is not set (write ${{{name}:-default}} for a default)"
        ))),
    }
}

/// Whether `name` is a POSIX shell variable name.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first == '_' || first.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn the_three_forms_expand_and_a_default_covers_unset_and_empty() {
        assert_eq!(expand("${HOME}/x", &env).unwrap(), "/home/me/x");
        assert_eq!(expand("${env:HOME}", &env).unwrap(), "/home/me");
        assert_eq!(
            expand("${NOPE:-d}|${EMPTY:-e}|${HOME:-f}", &env).unwrap(),
            "d|e|/home/me"
        );
        assert_eq!(expand("$HOME costs $5", &env).unwrap(), "$HOME costs $5");
    }

    #[test]
    fn an_unset_variable_a_prompt_and_bad_forms_are_errors_naming_them() {
        assert!(
            expand("${NOPE}", &env)
                .unwrap_err()
                .0
                .contains("NOPE is not set")
        );
        assert!(
            expand("${input:token}", &env)
                .unwrap_err()
                .0
                .contains("input:token")
        );
        assert!(
            expand("${1X}", &env)
                .unwrap_err()
                .0
                .contains("not a variable")
        );
        assert!(
            expand("a ${HOME", &env)
                .unwrap_err()
                .0
                .contains("unterminated")
        );
    }

    #[test]
    fn the_values_read_from_the_environment_are_reported_and_defaults_are_not() {
        let mut read = Vec::new();
        let text = expand_into("${HOME}:${NOPE:-d}:${env:HOME}", &env, &mut read).unwrap();
        assert_eq!(text, "/home/me:d:/home/me");
        assert_eq!(read, ["/home/me", "/home/me"]);
    }

    proptest! {
        #[test]
        fn text_without_a_variable_is_unchanged(text in "[^{]*") {
            prop_assert_eq!(expand(&text, &env).unwrap(), text);
        }
    }
}
