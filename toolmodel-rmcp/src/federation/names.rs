//! Flat tool names (the rules are on [`NamePolicy`]).

use std::collections::{BTreeMap, HashMap};

/// How a federated tool's flat name is made: what it is called where one name must say which
/// server it comes from (the gateway's `tools/list`, a model's tool list).
///
/// Inside a [`Toolbox`](toolmodel::Toolbox) an upstream tool keeps its `namespace` (the
/// server's name), so its ID `server:tool` never collides and
/// [`Toolbox::call_id`](toolmodel::Toolbox::call_id) reaches it. Its MCP name, the one
/// `tools/list` shows and [`Toolbox::call`](toolmodel::Toolbox::call) routes, is made by a
/// [`NamePolicy`], deterministically (the same tools give the same names, whatever order the
/// servers answer in):
///
/// 1. A kept name is the server's own, unchanged (a valid MCP name: a gateway in front of one
///    server is transparent to its clients).
/// 2. A prefixed name is `<server>__<tool>`, made to fit the providers' limit
///    `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic, Gemini): every character outside
///    `[a-zA-Z0-9_-]` becomes `_`, and a name over 64 characters keeps its first 55 and ends
///    with `_` and 8 hex digits of the FNV-1a hash of `server:tool` (so two long names that
///    share a beginning differ). A kept name with a `.` or `/` is mapped to a provider's rule
///    where it is sent to one (`toolmodel::adapters`, `model_calls`).
/// 3. The separator `__` is the gateway's alone: a name that holds it (once `.` and `/` are
///    read as `_`, as a provider sees it) is never kept, since `good__search` from server
///    `evil` would read as server `good`'s tool `search`. Such a tool is prefixed
///    (`evil__good__search`: a prefixed name's server is what comes before its first `__`,
///    as a server's name never holds `__` nor ends with `_`, see
///    [`FederationConfigBuilder::build`](super::FederationConfigBuilder::build)); under
///    [`NamePolicy::Never`], which prefixes nothing, it is left out.
/// 4. Tools left with one name (a local tool's included) are left out, every one of them
///    (a local tool keeps its name): no tool is ever served under a name another could claim,
///    and one server's list never stops the others' tools from being served.
///
/// Each tool renamed by rule 3 or left out by rules 3 and 4 comes with the reason, which the
/// federation reports in the server's
/// [`UpstreamStatus::warnings`](super::UpstreamStatus::warnings).
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
    /// Every tool keeps the server's name for it; tools that share one are left out (JSON
    /// `"never"`).
    Never,
}

/// The longest flat name providers accept.
pub const MAX_FLAT_NAME: usize = 64;

/// The separator between the server's name and the tool's in a prefixed name.
pub const SEPARATOR: &str = "__";

/// One tool to name: its server and its name there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Upstream<'a> {
    pub(crate) server: &'a str,
    pub(crate) tool: &'a str,
}

/// What became of one tool's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Flat {
    /// Served under this name, as the policy says.
    Served(String),
    /// Served under this prefixed name where the policy would have kept the server's, which
    /// holds the [`SEPARATOR`] (rule 3).
    Prefixed(String),
    /// Not served: its name holds the [`SEPARATOR`] and the policy keeps every name (rule 3).
    Separator,
    /// Not served: `others` (IDs `server:tool`, or `local tool "name"`) would be served as
    /// `name` too (rule 4).
    Collision { name: String, others: Vec<String> },
}

impl Flat {
    /// The name it is served under, if it is.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Self::Served(name) | Self::Prefixed(name) => Some(name),
            Self::Separator | Self::Collision { .. } => None,
        }
    }

    /// Why the tool `tool` (its name on its server) is renamed or left out, for the operator;
    /// `None` when it is served as the policy says.
    pub(crate) fn warning(&self, tool: &str) -> Option<String> {
        let forgeable = format!(
            "its name holds {SEPARATOR:?}, the separator of the gateway's <server>{SEPARATOR}<tool> names, so it could pass for another server's tool"
        );
        match self {
            Self::Served(_) => None,
            Self::Prefixed(name) => {
                Some(format!("tool {tool:?} is served as {name:?}: {forgeable}"))
            }
            Self::Separator => Some(format!(
                "tool {tool:?} is not served: {forgeable} (toolNames \"never\" prefixes nothing)"
            )),
            Self::Collision { name, others } => Some(format!(
                "tool {tool:?} is not served: {} would be served as {name:?} too",
                others.join(" and ")
            )),
        }
    }
}

/// Whether `name` holds the [`SEPARATOR`] once made to fit (`.` and `/` read as `_`).
pub(crate) fn holds_separator(name: &str) -> bool {
    let mut underscores = 0;
    name.chars().any(|c| {
        underscores = if c.is_ascii_alphanumeric() || c == '-' {
            0
        } else {
            underscores + 1
        };
        underscores >= SEPARATOR.len()
    })
}

/// What becomes of the flat name of each of `tools` (same order) under `policy`, none served
/// under a name another tool or one of `reserved` (the local tools' names) could claim; see
/// the [module docs](self).
pub(crate) fn flat_names(
    policy: NamePolicy,
    reserved: &[&str],
    tools: &[Upstream<'_>],
) -> Vec<Flat> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for tool in tools {
        *count.entry(tool.tool).or_default() += 1;
    }
    let mut flat: Vec<Flat> = tools
        .iter()
        .map(|tool| {
            let forgeable = holds_separator(tool.tool);
            let keep = match policy {
                NamePolicy::Always => false,
                NamePolicy::Never => true,
                NamePolicy::OnCollision => {
                    count.get(tool.tool).copied() == Some(1) && !reserved.contains(&tool.tool)
                }
            };
            let prefixed = || fitted(&format!("{}{SEPARATOR}{}", tool.server, tool.tool), tool);
            match (keep, forgeable, policy) {
                (true, false, _) => Flat::Served(tool.tool.to_owned()),
                (true, true, NamePolicy::Never) => Flat::Separator,
                (true, true, _) => Flat::Prefixed(prefixed()),
                (false, _, _) => Flat::Served(prefixed()),
            }
        })
        .collect();
    // Every claimant of each name (the index of an upstream tool; `None`, a local tool).
    let mut claims: BTreeMap<String, Vec<(Option<usize>, String)>> = reserved
        .iter()
        .map(|name| {
            (
                (*name).to_owned(),
                vec![(None, format!("local tool {name:?}"))],
            )
        })
        .collect();
    for (index, (named, tool)) in flat.iter().zip(tools).enumerate() {
        if let Some(name) = named.name() {
            claims
                .entry(name.to_owned())
                .or_default()
                .push((Some(index), format!("{}:{}", tool.server, tool.tool)));
        }
    }
    for (index, named) in flat.iter_mut().enumerate() {
        let Some(name) = named.name() else {
            continue;
        };
        let Some(claimants) = claims.get(name).filter(|claimants| claimants.len() > 1) else {
            continue;
        };
        let others = claimants
            .iter()
            .filter(|(claimant, _)| *claimant != Some(index))
            .map(|(_, id)| id.clone())
            .collect();
        *named = Flat::Collision {
            name: name.to_owned(),
            others,
        };
    }
    flat
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn fits(name: &str) -> bool {
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

    /// The served names, `None` for a tool left out.
    fn served(flat: &[Flat]) -> Vec<Option<&str>> {
        flat.iter().map(Flat::name).collect()
    }

    #[test]
    fn on_collision_prefixes_only_the_tools_that_share_a_name() {
        let tools = [
            up("a", "echo"),
            up("b", "echo"),
            up("b", "add"),
            up("c", "ping"),
        ];
        let names = flat_names(NamePolicy::OnCollision, &["ping"], &tools);
        assert_eq!(
            served(&names),
            [
                Some("a__echo"),
                Some("b__echo"),
                Some("add"),
                Some("c__ping")
            ]
        );
        assert!(names.iter().all(|name| matches!(name, Flat::Served(_))));
    }

    #[test]
    fn always_prefixes_every_tool_and_never_keeps_every_name() {
        let tools = [up("a", "echo"), up("b", "add")];
        assert_eq!(
            served(&flat_names(NamePolicy::Always, &[], &tools)),
            [Some("a__echo"), Some("b__add")]
        );
        assert_eq!(
            served(&flat_names(NamePolicy::Never, &[], &tools)),
            [Some("echo"), Some("add")]
        );
    }

    #[test]
    fn tools_left_with_one_name_are_all_left_out_naming_each_other() {
        let names = flat_names(
            NamePolicy::Never,
            &[],
            &[up("a", "echo"), up("b", "echo"), up("b", "add")],
        );
        assert_eq!(served(&names), [None, None, Some("add")]);
        assert_eq!(
            names[0].warning("echo").unwrap(),
            "tool \"echo\" is not served: b:echo would be served as \"echo\" too"
        );
        // A local tool keeps its name; the upstream tool is left out.
        let names = flat_names(NamePolicy::Always, &["a__x"], &[up("a", "x")]);
        assert_eq!(
            names[0].warning("x").unwrap(),
            "tool \"x\" is not served: local tool \"a__x\" would be served as \"a__x\" too"
        );
        // One server listing a tool twice.
        let names = flat_names(NamePolicy::OnCollision, &[], &[up("a", "x"), up("a", "x")]);
        assert_eq!(served(&names), [None, None]);
    }

    #[test]
    fn a_name_holding_the_separator_is_never_kept() {
        // `evil` publishes `good__search`, which would read as `good`'s `search`.
        let tools = [
            up("good", "search"),
            up("evil", "search"),
            up("evil", "good__search"),
        ];
        let names = flat_names(NamePolicy::OnCollision, &[], &tools);
        assert_eq!(
            served(&names),
            [
                Some("good__search"),
                Some("evil__search"),
                Some("evil__good__search")
            ]
        );
        assert_eq!(
            names[2].warning("good__search").unwrap(),
            "tool \"good__search\" is served as \"evil__good__search\": its name holds \"__\", the separator of the gateway's <server>__<tool> names, so it could pass for another server's tool"
        );
        // Under `never` it is left out.
        let names = flat_names(NamePolicy::Never, &[], &[up("evil", "good__search")]);
        assert_eq!(names[0], Flat::Separator);
        // A single underscore, `.` or `/` alone do not make a separator.
        assert!(!holds_separator("get_thing.v2"));
        assert!(holds_separator("a./b") && holds_separator("a__b") && holds_separator("a_.b"));
    }

    #[test]
    fn names_that_do_not_fit_are_made_to_fit_deterministically() {
        let long = "t".repeat(70);
        let tools = [up("my.server", "get/thing"), up("s", &long)];
        let names = flat_names(NamePolicy::Always, &[], &tools);
        assert_eq!(names[0].name(), Some("my_server__get_thing"));
        let second = names[1].name().unwrap();
        assert_eq!(second.len(), 64);
        assert!(second.starts_with("s__ttt"));
        assert_eq!(names, flat_names(NamePolicy::Always, &[], &tools));
    }

    proptest! {
        #[test]
        fn every_prefixed_name_fits_the_providers_limit(
            tools in prop::collection::btree_set(("[a-z.]{1,20}", "[A-Za-z0-9_./-]{1,90}"), 1..12),
        ) {
            let tools: Vec<(String, String)> = tools.into_iter().collect();
            let upstream: Vec<Upstream<'_>> = tools.iter().map(|(s, t)| up(s, t)).collect();
            for name in flat_names(NamePolicy::Always, &[], &upstream).iter().filter_map(Flat::name) {
                prop_assert!(fits(name), "{name:?}");
            }
        }

        #[test]
        fn a_name_kept_on_collision_is_the_servers_own(tool in "[A-Za-z0-9./-]{1,90}") {
            prop_assume!(!holds_separator(&tool));
            let names = flat_names(NamePolicy::OnCollision, &[], &[up("s", &tool)]);
            prop_assert_eq!(names[0].name(), Some(tool.as_str()));
        }

        #[test]
        fn on_collision_keeps_names_that_are_unique_and_fit(tools in prop::collection::btree_map("[a-z]{1,30}", "[a-z]{1,8}", 1..12)) {
            let upstream: Vec<Upstream<'_>> = tools.iter().map(|(t, s)| up(s, t)).collect();
            let names = flat_names(NamePolicy::OnCollision, &[], &upstream);
            let expected: Vec<Option<&str>> = tools.keys().map(|t| Some(t.as_str())).collect();
            prop_assert_eq!(served(&names), expected);
        }

        #[test]
        fn no_served_name_is_claimed_twice_and_none_kept_holds_the_separator(
            tools in prop::collection::vec(("[a-c]{1,2}", "[a-c_.]{1,4}"), 1..12),
            policy in prop::sample::select(vec![NamePolicy::Always, NamePolicy::OnCollision, NamePolicy::Never]),
        ) {
            let upstream: Vec<Upstream<'_>> = tools.iter().map(|(s, t)| up(s, t)).collect();
            let names = flat_names(policy, &["a"], &upstream);
            let served: Vec<&str> = names.iter().filter_map(Flat::name).collect();
            let mut unique = served.clone();
            unique.sort_unstable();
            unique.dedup();
            prop_assert_eq!(unique.len(), served.len());
            prop_assert!(!served.contains(&"a"));
            for (name, tool) in names.iter().zip(&upstream) {
                if let Flat::Served(name) = name && name == tool.tool {
                    prop_assert!(!holds_separator(name));
                }
            }
        }
    }
}
