//! [`Status`]: how a command ended, and the process exit status it maps to.

use std::process::ExitCode;

/// How a command ended. The exit status is the number in each variant's description.
///
/// When a run has both findings and failures (a `lint` of several files), the worst wins:
/// [`Status::Failure`] over [`Status::Findings`] over [`Status::Clean`] (the derived [`Ord`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// 0: nothing to report (`lint` found no error, `validate` found the arguments valid,
    /// `convert` converted every tool).
    Clean,
    /// 1: the command ran and found problems: an MCP spec error (`lint`), a tool rejected by a
    /// target named with `--target` (`lint`), arguments that do not match the schema
    /// (`validate`), a tool that cannot be converted (`convert`), a server unavailable
    /// (`tools`), a configuration or option the gateway refuses (`gateway --check-config`).
    Findings,
    /// 2: the command could not run as asked: a usage error (clap's own exit status 2), a
    /// file that cannot be read, is not JSON or holds no MCP tools, a tool not found.
    Failure,
}

impl Status {
    /// The process exit status: 0, 1 or 2.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::Clean => 0,
            Self::Findings => 1,
            Self::Failure => 2,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        Self::from(status.code())
    }
}
