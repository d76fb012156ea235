//! The configuration file as `toolmodel gateway` runs it, checked against its options: what
//! `--check-config` checks of the file, at start and at each reload (`reload`).

use toolmodel_rmcp::federation::FederationConfig;

use crate::cli::GatewayArgs;
use crate::text::about_file;

/// The configuration of `--config` and what its check found.
pub(crate) struct Checked {
    /// The configuration, when the file could be read and used.
    pub(crate) config: Option<FederationConfig>,
    /// Each problem, one sentence naming the file, the server and the JSON Pointer where it
    /// has them: the configuration must not be run.
    pub(crate) problems: Vec<String>,
    /// What is worth saying but no problem (a `requiredScopes` nothing checks over stdio).
    pub(crate) notes: Vec<String>,
}

impl Checked {
    /// The configuration, when the check found no problem; the problems otherwise.
    pub(crate) fn usable(self) -> Result<FederationConfig, Vec<String>> {
        match (self.config, self.problems.is_empty()) {
            (Some(config), true) => Ok(config),
            (_, _) => Err(self.problems),
        }
    }
}

/// Reads `--config` and checks it against the options of `args`: a file that cannot be read
/// or used (naming the file, the server and the JSON Pointer), without `--auth-issuer` a
/// `toolmodelPolicy` rule with `when` (no request would have a caller), and over HTTP without
/// `--auth-issuer` a server with `requiredScopes` (nothing would check them; over stdio a
/// note says so).
pub(crate) fn check(args: &GatewayArgs) -> Checked {
    let mut checked = Checked {
        config: None,
        problems: Vec::new(),
        notes: Vec::new(),
    };
    let config = match FederationConfig::from_path(&args.config) {
        Ok(config) => config,
        Err(err) => {
            checked.problems.push(about_file(&args.config, &err));
            return checked;
        }
    };
    if args.auth_issuer.is_none()
        && let Some(Err(err)) = config
            .tool_policy
            .as_ref()
            .map(|policy| policy.check_without_authorization())
    {
        checked.problems.push(about_file(&args.config, &err));
    }
    for server in config.enabled() {
        if server.required_scopes.is_empty() {
            continue;
        }
        match (args.http, &args.auth_issuer) {
            (Some(_), None) => checked.problems.push(format!(
                "server {:?} has requiredScopes {:?}, which only a gateway with --auth-issuer checks: add --auth-issuer, or remove requiredScopes",
                server.name, server.required_scopes
            )),
            (None, _) => checked.notes.push(format!(
                "the requiredScopes of server {:?} are not checked over stdio (one local client; they are with --http and --auth-issuer)",
                server.name
            )),
            (Some(_), Some(_)) => {}
        }
    }
    checked.config = Some(config);
    checked
}
