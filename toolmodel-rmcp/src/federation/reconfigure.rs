//! What a [`Federation::reconfigure`](super::Federation::reconfigure) did: [`Reconfigured`],
//! server by server, and the tools of unchanged servers it renamed ([`Renamed`]).

use std::collections::BTreeMap;

use toolmodel::Toolbox;

/// What a [`Federation::reconfigure`](super::Federation::reconfigure) did, each list sorted by
/// server name. Its [`Display`](std::fmt::Display) is the log line's
/// `added [a, b] removed [] changed [c]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconfigured {
    /// Servers enabled by the new configuration only: connected and imported.
    pub added: Vec<String>,
    /// Servers enabled by the old configuration only (removed or disabled): drained, then
    /// closed.
    pub removed: Vec<String>,
    /// Servers of both whose configuration differs: a new session (a new child process)
    /// replaced the old one, which is drained, then closed.
    pub changed: Vec<String>,
    /// Servers of both configured alike: their session, child process and calls untouched.
    pub unchanged: Vec<String>,
    /// Of `added` and `changed`, those whose session did not open: their tools are not
    /// served yet, and the federation keeps trying in the background (as at start).
    pub unavailable: Vec<String>,
    /// Tools of `unchanged` servers served under another name now (see [`Renamed`]).
    pub renamed: Vec<Renamed>,
    /// Whether the `toolmodelPolicy` differs.
    pub tool_policy_changed: bool,
}

/// `added [..] removed [..] changed [..]`.
impl std::fmt::Display for Reconfigured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "added [{}] removed [{}] changed [{}]",
            self.added.join(", "),
            self.removed.join(", "),
            self.changed.join(", ")
        )
    }
}

/// A tool of a server that a reconfiguration left unchanged, served under another name (or
/// no longer served) since: under [`NamePolicy::OnCollision`](super::NamePolicy::OnCollision),
/// an added server with a tool of the same name makes both prefixed; under
/// [`NamePolicy::Never`](super::NamePolicy::Never), both left out. (Names follow from the
/// tools served, whatever order they came in: the name a restart would give.)
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Renamed {
    /// The server's name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The name it was served as.
    pub before: String,
    /// The name it is served as now; `None`: no longer served.
    pub after: Option<String>,
}

/// `server "time" tool "now": "now" -> "time__now"`, or `... is no longer served`.
impl std::fmt::Display for Renamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            server,
            tool,
            before,
            after,
        } = self;
        match after {
            Some(after) => write!(
                f,
                "server {server:?} tool {tool:?}: {before:?} -> {after:?}"
            ),
            None => write!(
                f,
                "server {server:?} tool {tool:?}: {before:?} is no longer served"
            ),
        }
    }
}

/// The name each upstream tool of `toolbox` is served as, by its server and its name there.
fn served_names(toolbox: &Toolbox) -> BTreeMap<(&str, &str), &str> {
    toolbox
        .tools()
        .iter()
        .zip(toolbox.definitions())
        .filter_map(|(listed, definition)| {
            let server = definition.namespace.as_deref()?;
            Some(((server, definition.name.as_str()), listed.name.as_str()))
        })
        .collect()
}

/// The tools of `servers` that `before` served under another name than `after` does.
pub(crate) fn renamed(before: &Toolbox, after: &Toolbox, servers: &[String]) -> Vec<Renamed> {
    let now = served_names(after);
    served_names(before)
        .into_iter()
        .filter(|((server, _), _)| servers.iter().any(|kept| kept == server))
        .filter_map(|((server, tool), name)| {
            let after = now.get(&(server, tool)).copied();
            (after != Some(name)).then(|| Renamed {
                server: server.to_owned(),
                tool: tool.to_owned(),
                before: name.to_owned(),
                after: after.map(str::to_owned),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use toolmodel::{CallToolResult, Tool, ToolSchema};

    use super::*;

    /// A toolbox of `(server, tool, served as)`.
    fn toolbox(tools: &[(&str, &str, &str)]) -> Toolbox {
        let mut builder = Toolbox::builder();
        for (server, tool, name) in tools {
            let mut tool = Tool::new(*tool, ToolSchema::empty_object());
            tool.namespace = Some((*server).to_owned());
            builder =
                builder.with_tool_as(*name, tool, |_, _| async { Ok(CallToolResult::text("ok")) });
        }
        builder.build().unwrap()
    }

    #[test]
    fn a_kept_servers_tool_served_otherwise_is_renamed_and_the_others_are_not() {
        let before = toolbox(&[("time", "now", "now"), ("time", "zone", "zone")]);
        let after = toolbox(&[
            ("time", "now", "time__now"),
            ("clock", "now", "clock__now"),
            ("time", "zone", "zone"),
        ]);
        let renamed = renamed(&before, &after, &["time".to_owned()]);
        assert_eq!(renamed.len(), 1);
        assert_eq!(
            renamed[0].to_string(),
            r#"server "time" tool "now": "now" -> "time__now""#
        );
        let gone = super::renamed(&before, &toolbox(&[]), &["time".to_owned()]);
        assert_eq!(
            gone[0].to_string(),
            r#"server "time" tool "now": "now" is no longer served"#
        );
        assert!(super::renamed(&before, &toolbox(&[]), &[]).is_empty());
        let report = Reconfigured {
            added: vec!["clock".into()],
            changed: vec!["a".into(), "b".into()],
            ..Reconfigured::default()
        };
        assert_eq!(
            report.to_string(),
            "added [clock] removed [] changed [a, b]"
        );
    }
}
