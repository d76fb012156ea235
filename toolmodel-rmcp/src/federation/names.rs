//! Flat tool names: what a federated tool is called where one name must say which server it
//! comes from (the gateway's `tools/list`, a model's tool list).
//!
//! Inside a [`Toolbox`](toolmodel::Toolbox) an upstream tool keeps its `namespace` (the
//! server's name), so its ID `server:tool` never collides and
//! [`Toolbox::call_id`](toolmodel::Toolbox::call_id) reaches it. Its MCP name, the one
//! `tools/list` shows and [`Toolbox::call`](toolmodel::Toolbox::call) routes, is made by a
//! [`NamePolicy`], deterministically (the same tools give the same names, whatever order the
//! servers answer in):
//!
//! 1. A kept name is the server's own, unchanged (a valid MCP name: a gateway in front of one
//!    server is transparent to its clients).
//! 2. A prefixed name is `<server>__<tool>`, made to fit the providers' limit
//!    `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic, Gemini): every character outside
//!    `[a-zA-Z0-9_-]` becomes `_`, and a name over 64 characters keeps its first 55 and ends
//!    with `_` and 8 hex digits of the FNV-1a hash of `server:tool` (so two long names that
//!    share a beginning differ). A kept name with a `.` or `/` is mapped to a provider's rule
//!    where it is sent to one (`toolmodel::adapters`, `model_calls`).
//! 3. Two tools left with one name (the local tools' names included) are
//!    [`Error::NameCollision`] naming both: never a silent overwrite.

use std::collections::HashMap;

use crate::error::Error;

/// How a federated tool's flat name is made; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamePolicy {
    /// Every tool is `<server>__<tool>`, within the providers' limit (JSON `"always"`).
    Always,
    /// A tool keeps the server's name for it when no other tool (of another server, or a
    /// local one) has that name, and is `<server>__<tool>` otherwise: a gateway over one server
    /// is transparent (JSON `"onCollision"`, the default).
    #[default]
    OnCollision,
    /// Every tool keeps the server's name for it; a collision is an error (JSON `"never"`).
    Never,
}

/// The longest flat name providers accept.
pub const MAX_FLAT_NAME: usize = 64;

/// The separator between the server's name and the tool's in a prefixed name.
const SEPARATOR: &str = "__";

/// One tool to name: its server and its name there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Upstream<'a> {
    pub(crate) server: &'a str,
    pub(crate) tool: &'a str,
}

/// The flat name of each of `tools` (same order) under `policy`, none equal to another or to
/// one of `reserved` (the local tools' names).
///
/// # Errors
///
/// [`Error::NameCollision`] naming the two tools (`server:tool`, or the local name) that would
/// share a name.
pub(crate) fn flat_names(
    policy: NamePolicy,
    reserved: &[&str],
    tools: &[Upstream<'_>],
) -> Result<Vec<String>, Error> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for tool in tools {
        *count.entry(tool.tool).or_default() += 1;
    }
    let names: Vec<String> = tools
        .iter()
        .map(|tool| {
            let keep = match policy {
                NamePolicy::Always => false,
                NamePolicy::Never => true,
                NamePolicy::OnCollision => {
                    count.get(tool.tool).copied() == Some(1) && !reserved.contains(&tool.tool)
                }
            };
            if keep {
                tool.tool.to_owned()
            } else {
                fitted(&format!("{}{SEPARATOR}{}", tool.server, tool.tool), tool)
            }
        })
        .collect();
    let mut owner: HashMap<&str, String> = reserved
        .iter()
        .map(|name| (*name, format!("local tool {name:?}")))
        .collect();
    for (name, tool) in names.iter().zip(tools) {
        let id = format!("{}:{}", tool.server, tool.tool);
        if let Some(first) = owner.insert(name, id.clone()) {
            return Err(Error::NameCollision {
                name: name.clone(),
                first,
                second: id,
            });
        }
    }
    Ok(names)
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub fn fits(name: &str) -> bool {
    (1..=MAX_FLAT_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `name` made to fit (rule 2 of the module docs), the hash taken of `tool`'s ID.
fn fitted(name: &str, tool: &Upstream<'_>) -> String {
    if fits(name) {
        return name.to_owned();
    }
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.len() > MAX_FLAT_NAME {
        out.truncate(MAX_FLAT_NAME - 9);
        out.push_str(&format!(
            "_{:08x}",
            fnv1a(&format!("{}:{}", tool.server, tool.tool))
        ));
    }
    out
}

/// FNV-1a, 32 bits: a hash that is the same on every platform and in every release.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash: u32, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn up<'a>(server: &'a str, tool: &'a str) -> Upstream<'a> {
        Upstream { server, tool }
    }

    #[test]
    fn on_collision_prefixes_only_the_tools_that_share_a_name() {
        let tools = [
            up("a", "echo"),
            up("b", "echo"),
            up("b", "add"),
            up("c", "ping"),
        ];
        let names = flat_names(NamePolicy::OnCollision, &["ping"], &tools).unwrap();
        assert_eq!(names, ["a__echo", "b__echo", "add", "c__ping"]);
    }

    #[test]
    fn always_prefixes_every_tool_and_never_keeps_every_name() {
        let tools = [up("a", "echo"), up("b", "add")];
        assert_eq!(
            flat_names(NamePolicy::Always, &[], &tools).unwrap(),
            ["a__echo", "b__add"]
        );
        assert_eq!(
            flat_names(NamePolicy::Never, &[], &tools).unwrap(),
            ["echo", "add"]
        );
    }

    #[test]
    fn a_collision_left_after_the_policy_names_both_tools() {
        let err =
            flat_names(NamePolicy::Never, &[], &[up("a", "echo"), up("b", "echo")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tools a:echo and b:echo would both be served as \"echo\""
        );
        let err = flat_names(NamePolicy::Always, &["a__x"], &[up("a", "x")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tools local tool \"a__x\" and a:x would both be served as \"a__x\""
        );
    }

    #[test]
    fn names_that_do_not_fit_are_made_to_fit_deterministically() {
        let long = "t".repeat(70);
        let names = flat_names(
            NamePolicy::Always,
            &[],
            &[up("my.server", "get/thing"), up("s", &long)],
        )
        .unwrap();
        assert_eq!(names[0], "my_server__get_thing");
        assert_eq!(names[1].len(), 64);
        assert!(names[1].starts_with("s__ttt"));
        assert_eq!(
            names,
            flat_names(
                NamePolicy::Always,
                &[],
                &[up("my.server", "get/thing"), up("s", &long)]
            )
            .unwrap()
        );
    }

    proptest! {
        #[test]
        fn every_prefixed_name_fits_the_providers_limit(
            tools in prop::collection::btree_set(("[a-z.]{1,20}", "[A-Za-z0-9_./-]{1,90}"), 1..12),
        ) {
            let tools: Vec<(String, String)> = tools.into_iter().collect();
            let upstream: Vec<Upstream<'_>> = tools.iter().map(|(s, t)| up(s, t)).collect();
            if let Ok(names) = flat_names(NamePolicy::Always, &[], &upstream) {
                for name in &names {
                    prop_assert!(fits(name), "{name:?}");
                }
            }
        }

        #[test]
        fn a_name_kept_on_collision_is_the_servers_own(tool in "[A-Za-z0-9_./-]{1,90}") {
            let names = flat_names(NamePolicy::OnCollision, &[], &[up("s", &tool)]).unwrap();
            prop_assert_eq!(&names[0], &tool);
        }

        #[test]
        fn on_collision_keeps_names_that_are_unique_and_fit(tools in prop::collection::btree_map("[a-z_]{1,30}", "[a-z]{1,8}", 1..12)) {
            let upstream: Vec<Upstream<'_>> = tools.iter().map(|(t, s)| up(s, t)).collect();
            let names = flat_names(NamePolicy::OnCollision, &[], &upstream).unwrap();
            let expected: Vec<&String> = tools.keys().collect();
            prop_assert_eq!(names.iter().collect::<Vec<_>>(), expected);
        }
    }
}
