//! [`ToolPolicy`]: which tools each caller sees and may call, by rules on its verified claims
//! and scopes that allow tool IDs by glob; and [`PolicyViews`], what a toolbox served under a
//! policy looks like to each set of rules, built once per toolbox and kept with it.
//!
//! A policy is read once ([`ToolPolicy::from_json`]: the globs cut into their literal pieces
//! there); a request then costs one pass over the rules' conditions, which gives the set of
//! rules that apply to its caller, and one hash lookup of that set's [`View`] (built on the
//! first request of a set for each toolbox, its tools matched against the rules' globs once).

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
};

use serde_json::{Map, Value};
use toolmodel::{Caller, Toolbox};

use super::tool_search::synthetic::{self, is_synthetic};
use crate::error::Error;
use crate::lock::lock;
use crate::pointer::escape;
use crate::suggest::{did_you_mean, nearest};

/// The top-level key of a federation configuration that holds a [`ToolPolicy`].
pub const POLICY_KEY: &str = "toolmodelPolicy";

/// The most sets of rules whose [`View`]s one toolbox keeps; past it they are built again.
const MAX_VIEWS: usize = 1024;

/// Which tools each caller sees in `tools/list` and may call: rules on the caller's verified
/// claims and scopes (its [`Caller`]), each allowing tool IDs by glob. JSON: the top-level
/// `toolmodelPolicy` of a gateway's configuration; the guide's
/// [Each user's own tools](crate::guide::mcp_backends#each-users-own-tools) has the whole
/// story.
///
/// - A tool's ID is `server.tool` for a gateway's upstream tool (the server's name in the
///   configuration, the tool's name on that server, whatever name the gateway serves it as),
///   and `namespace.name` or `name` for a local tool.
/// - A glob is an ID in which `*` stands for any run of characters, `.` included: `notes.*`
///   (every tool of server `notes`), `*.read_*` (the `read_` tools of every server), `*`
///   (everything).
/// - A rule applies to a caller when each condition of its `when` holds (no `when`: to
///   everyone): `sub` and `client_id` list values one of which is the caller's; `scope` lists
///   scopes the token must all grant; `groups`, `roles` and each member of `claims` list values
///   one of which the token's claim of that name (a string, or an array of strings) holds.
/// - A caller sees, and may call, the tools some rule that applies to it allows, and no other:
///   a tool it may not see is not listed (and a list that varies by caller is
///   `cacheScope: "private"`), is never found by tool search, and a call of it is answered as
///   the call of a tool that does not exist.
/// - Without a verified caller (stdio, or HTTP without authorization) only the rules without
///   `when` apply; `toolmodel gateway` refuses a policy with `when` unless it checks tokens
///   ([`check_without_authorization`](Self::check_without_authorization)).
///
/// ```
/// use serde_json::json;
/// use toolmodel::Caller;
/// use toolmodel_rmcp::server::ToolPolicy;
///
/// let policy = ToolPolicy::from_json(&json!({"rules": [
///     {"allow": ["time.*"]},
///     {"allow": ["notes.*"], "when": {"groups": ["eng"]}},
///     {"allow": ["admin.*"], "when": {"sub": ["alice"], "scope": ["admin"]}}
/// ]}))?;
/// let eng = Caller::new("https://auth.example.com", "bob").with_claim("groups", ["eng"]);
/// assert!(policy.allows(Some(&eng), "notes.search"));
/// assert!(!policy.allows(Some(&eng), "admin.reset"));
/// assert!(policy.allows(None, "time.now"));
/// assert!(!policy.allows(None, "notes.search"));
/// # Ok::<(), toolmodel_rmcp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPolicy {
    rules: Vec<Rule>,
}

/// One rule: the globs it allows, for the callers its conditions select.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    allow: Vec<Glob>,
    /// `None`: every caller, and requests without one.
    when: Option<When>,
}

/// The conditions of a rule, each left empty when not given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct When {
    sub: Vec<String>,
    client_id: Vec<String>,
    /// All of them granted.
    scope: Vec<String>,
    /// Claims of strings by name (`groups`, `roles`, those of `claims`): one value held.
    claims: Vec<(String, Vec<String>)>,
}

/// A glob over tool IDs, cut at its `*`s once: `pieces` holds the literal text between them
/// (one piece: no `*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Glob {
    pieces: Vec<String>,
}

/// The keys of a `when`, claims of strings first among those named directly.
const WHEN_KEYS: [&str; 6] = ["sub", "client_id", "scope", "groups", "roles", "claims"];

impl Glob {
    /// The glob `text`, at `pointer`.
    pub(super) fn new(text: &str, pointer: &str) -> Result<Self, Error> {
        if text.is_empty() {
            return Err(policy_error(pointer, "an empty glob matches no tool ID"));
        }
        if let Some(bad) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*')))
        {
            return Err(policy_error(
                pointer,
                format!(
                    "glob {text:?} holds {bad:?}, which no tool ID holds: a glob is a tool ID (server.tool, of A-Z a-z 0-9 _ - .) in which * stands for any run of characters"
                ),
            ));
        }
        Ok(Self {
            pieces: text.split('*').map(str::to_owned).collect(),
        })
    }

    /// Whether `id` matches: the first piece begins it, the last ends it, and the others
    /// follow in order between them (each at its leftmost place, which is enough for `*`).
    pub(super) fn matches(&self, id: &str) -> bool {
        let Some((first, rest)) = self.pieces.split_first() else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return id == first;
        };
        let Some(mut between) = id
            .strip_prefix(first.as_str())
            .and_then(|id| id.strip_suffix(last.as_str()))
        else {
            return false;
        };
        for piece in middle {
            match between.find(piece.as_str()) {
                Some(at) => between = between.get(at + piece.len()..).unwrap_or_default(),
                None => return false,
            }
        }
        true
    }
}

impl When {
    /// Whether `caller` meets every condition.
    fn holds(&self, caller: &Caller) -> bool {
        (self.sub.is_empty() || self.sub.iter().any(|sub| sub == caller.subject()))
            && (self.client_id.is_empty()
                || caller
                    .client_id()
                    .is_some_and(|id| self.client_id.iter().any(|wanted| wanted == id)))
            && self.scope.iter().all(|scope| caller.has_scope(scope))
            && self.claims.iter().all(|(name, wanted)| {
                caller
                    .claim(name)
                    .any(|held| wanted.iter().any(|value| value == held))
            })
    }
}

/// [`Error::Config`] about the policy at `pointer`.
pub(super) fn policy_error(pointer: &str, message: impl Into<String>) -> Error {
    Error::Config {
        server: None,
        pointer: pointer.to_owned(),
        message: message.into(),
        source: None,
    }
}

/// Refuses the keys of `object` (at `pointer`) that are not `known`, naming the nearest.
pub(super) fn check_keys(
    object: &Map<String, Value>,
    known: &[&str],
    pointer: &str,
) -> Result<(), Error> {
    for key in object.keys() {
        if known.contains(&key.as_str()) {
            continue;
        }
        let message =
            did_you_mean(key, &nearest(key, known.iter().copied())).unwrap_or_else(|| {
                format!("unknown key {key:?}: expected one of {}", known.join(", "))
            });
        return Err(policy_error(&format!("{pointer}/{}", escape(key)), message));
    }
    Ok(())
}

/// The rules of `value`, the top-level `key` of a configuration: `{"rules": [...]}`, each
/// rule read by `read` at its pointer (`/<key>/rules/<i>`).
pub(super) fn read_rules<R>(
    value: &Value,
    key: &str,
    read: impl Fn(&Value, &str) -> Result<R, Error>,
) -> Result<Vec<R>, Error> {
    let base = format!("/{key}");
    let root = object(value, &base, "an object with \"rules\"")?;
    check_keys(root, &["rules"], &base)?;
    let rules_pointer = format!("{base}/rules");
    root.get("rules")
        .and_then(Value::as_array)
        .filter(|rules| !rules.is_empty())
        .ok_or_else(|| policy_error(&rules_pointer, "expected a non-empty array of rules"))?
        .iter()
        .enumerate()
        .map(|(index, rule)| read(rule, &format!("{rules_pointer}/{index}")))
        .collect()
}

/// The non-empty array of strings `value`, at `pointer`.
pub(super) fn strings(value: &Value, pointer: &str) -> Result<Vec<String>, Error> {
    let items = value
        .as_array()
        .filter(|items| !items.is_empty())
        .ok_or_else(|| policy_error(pointer, "expected a non-empty array of strings"))?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| policy_error(&format!("{pointer}/{index}"), "expected a string"))
        })
        .collect()
}

/// The object `value`, at `pointer`.
pub(super) fn object<'a>(
    value: &'a Value,
    pointer: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| policy_error(pointer, format!("expected {what}")))
}

impl ToolPolicy {
    /// Reads a policy: the value of the top-level `toolmodelPolicy` of a configuration,
    /// `{"rules": [{"allow": [glob, ...], "when": {...}}, ...]}` (the [type docs](Self) say
    /// what each means). Every glob is checked and cut here, once.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the JSON Pointer of the value (under `/toolmodelPolicy`): a
    /// value of the wrong type, an empty `rules`, `allow` or condition list, an empty `when`,
    /// a glob with a character no tool ID holds (only `*` is a wildcard), an unknown key
    /// (with the nearest known one: `"grops"`: did you mean `"groups"`?).
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        Ok(Self {
            rules: read_rules(value, POLICY_KEY, Rule::read)?,
        })
    }

    /// The number of rules.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether the policy has no rule (never: [`from_json`](Self::from_json) refuses it).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether `caller` (`None`: a request without a verified caller) may see and call the
    /// tool whose ID is `id` (`server.tool`).
    #[must_use]
    pub fn allows(&self, caller: Option<&Caller>, id: &str) -> bool {
        self.rules
            .iter()
            .any(|rule| rule.applies_to(caller) && rule.allow.iter().any(|glob| glob.matches(id)))
    }

    /// Refuses a policy that has rules on callers (a `when`) for a server that verifies no
    /// caller: those rules would never apply, and the tools they allow would be hidden from
    /// everyone. `toolmodel gateway` calls it without `--auth-issuer`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] at the first rule's `when` (`/toolmodelPolicy/rules/<i>/when`).
    pub fn check_without_authorization(&self) -> Result<(), Error> {
        match self.rules.iter().position(|rule| rule.when.is_some()) {
            Some(index) => Err(policy_error(
                &format!("/{POLICY_KEY}/rules/{index}/when"),
                "a rule on the caller's claims or scopes needs authorization (the gateway checks no access token, so no request has a caller): serve with authorization (--auth-issuer), or leave \"when\" out to allow the tools to everyone",
            )),
            None => Ok(()),
        }
    }

    /// The rules that apply to `caller`, as a bit set.
    fn applying(&self, caller: Option<&Caller>) -> RuleSet {
        let mut set = vec![0_u64; self.rules.len().div_ceil(64)];
        for (index, rule) in self.rules.iter().enumerate() {
            if rule.applies_to(caller)
                && let Some(word) = set.get_mut(index / 64)
            {
                *word |= 1 << (index % 64);
            }
        }
        RuleSet(set.into_boxed_slice())
    }

    /// Whether one of the rules of `set` allows `id`.
    fn allows_in(&self, set: &RuleSet, id: &str) -> bool {
        self.rules
            .iter()
            .enumerate()
            .any(|(index, rule)| set.holds(index) && rule.allow.iter().any(|glob| glob.matches(id)))
    }
}

impl Rule {
    fn read(value: &Value, pointer: &str) -> Result<Self, Error> {
        let rule = object(
            value,
            pointer,
            "a rule: an object with \"allow\" (and \"when\")",
        )?;
        check_keys(rule, &["allow", "when"], pointer)?;
        let allow_pointer = format!("{pointer}/allow");
        let allow = strings(rule.get("allow").unwrap_or(&Value::Null), &allow_pointer)?
            .iter()
            .enumerate()
            .map(|(index, glob)| Glob::new(glob, &format!("{allow_pointer}/{index}")))
            .collect::<Result<_, _>>()?;
        let when = rule
            .get("when")
            .map(|when| When::read(when, &format!("{pointer}/when")))
            .transpose()?;
        Ok(Self { allow, when })
    }

    fn applies_to(&self, caller: Option<&Caller>) -> bool {
        match (&self.when, caller) {
            (None, _) => true,
            (Some(when), Some(caller)) => when.holds(caller),
            (Some(_), None) => false,
        }
    }
}

impl When {
    fn read(value: &Value, pointer: &str) -> Result<Self, Error> {
        let members = object(value, pointer, "an object of conditions")?;
        check_keys(members, &WHEN_KEYS, pointer)?;
        if members.is_empty() {
            return Err(policy_error(
                pointer,
                "an empty \"when\": leave it out for a rule that applies to everyone",
            ));
        }
        let mut when = Self::default();
        for (key, value) in members {
            let at = format!("{pointer}/{key}");
            match key.as_str() {
                "sub" => when.sub = strings(value, &at)?,
                "client_id" => when.client_id = strings(value, &at)?,
                "scope" => when.scope = strings(value, &at)?,
                "claims" => {
                    let claims = object(value, &at, "an object of claims by name")?;
                    for (name, values) in claims {
                        let values = strings(values, &format!("{at}/{}", escape(name)))?;
                        when.claims.push((name.clone(), values));
                    }
                }
                _ => when.claims.push((key.clone(), strings(value, &at)?)),
            }
        }
        Ok(when)
    }
}

/// A set of rules by index, one bit each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RuleSet(Box<[u64]>);

impl RuleSet {
    fn holds(&self, index: usize) -> bool {
        self.0
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }
}

/// What a toolbox looks like to the callers a set of rules applies to: the tools they may
/// call, and their `tools/list`.
#[derive(Debug)]
pub(crate) struct View {
    /// The toolbox's tools they may call (each tool's own, dummy handler): its names are the
    /// visible ones, and its [`Toolbox::check_arguments`] the unknown-tool error a hidden
    /// tool's call gets, the nearest name among those visible.
    pub(crate) visible: Toolbox,
    /// What they are listed: `visible`, or while tool search discloses the toolbox its
    /// listing's visible tools with `search_tools` and `call_tool`.
    pub(crate) listing: Toolbox,
    names: HashSet<String>,
}

impl View {
    /// Whether the tool served as `name` may be called.
    pub(crate) fn sees(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The error of a `tools/call` of `name`, which is not visible: the same as for a tool
    /// that does not exist, its nearest name one of the visible tools'.
    pub(crate) fn unknown(&self, name: &str) -> toolmodel::Error {
        match self.visible.check_arguments(name, &Value::Null) {
            Err(err) => err,
            Ok(_) => toolmodel::Error::UnknownTool {
                name: name.to_owned(),
                nearest: None,
            },
        }
    }
}

/// The [`View`]s of one toolbox, by set of rules, built on first use, for one policy: a
/// server's policy replaced (`ToolboxServer::set_tool_policy`) drops them, as a set of rules
/// is a set of the old policy's rule numbers.
#[derive(Debug, Default)]
pub(crate) struct PolicyViews(Mutex<Views>);

/// The views of [`PolicyViews`] and the policy they were built for.
#[derive(Debug, Default)]
struct Views {
    /// Held, so that no other policy is ever allocated at its address while the views are
    /// kept.
    policy: Option<Arc<ToolPolicy>>,
    sets: HashMap<RuleSet, Arc<View>>,
}

impl Views {
    /// The views of `policy`: those of another one dropped.
    fn of(&mut self, policy: &Arc<ToolPolicy>) -> &mut HashMap<RuleSet, Arc<View>> {
        if !self
            .policy
            .as_ref()
            .is_some_and(|built_for| Arc::ptr_eq(built_for, policy))
        {
            self.policy = Some(Arc::clone(policy));
            self.sets.clear();
        }
        &mut self.sets
    }
}

impl PolicyViews {
    /// The view of `toolbox` (listed as `disclosed` under tool search) for `caller` under
    /// `policy`; `None` when it cannot be built (a tool that built once and not again: not
    /// seen in practice).
    pub(crate) fn view(
        &self,
        policy: &Arc<ToolPolicy>,
        caller: Option<&Caller>,
        toolbox: &Toolbox,
        disclosed: Option<&Toolbox>,
    ) -> Option<Arc<View>> {
        let set = policy.applying(caller);
        if let Some(view) = lock(&self.0).of(policy).get(&set) {
            return Some(Arc::clone(view));
        }
        let names: HashSet<String> = toolbox
            .tools()
            .iter()
            .zip(toolbox.definitions())
            .filter(|(_, definition)| {
                let id = match &definition.namespace {
                    Some(namespace) => format!("{namespace}.{}", definition.name),
                    None => definition.name.clone(),
                };
                policy.allows_in(&set, &id)
            })
            .map(|(listed, _)| listed.name.clone())
            .collect();
        let built = synthetic::listing(
            toolbox
                .tools()
                .iter()
                .filter(|tool| names.contains(&tool.name)),
        )
        .and_then(|visible| {
            let listing = match disclosed {
                None => visible.clone(),
                Some(disclosed) => synthetic::listing(
                    disclosed
                        .tools()
                        .iter()
                        .filter(|tool| is_synthetic(&tool.name) || names.contains(&tool.name)),
                )?,
            };
            Ok((visible, listing))
        });
        let (visible, listing) = match built {
            Ok(built) => built,
            Err(err) => {
                eprintln!("warning: tool policy: no tool list for a set of rules: {err}");
                return None;
            }
        };
        let view = Arc::new(View {
            visible,
            listing,
            names,
        });
        let mut views = lock(&self.0);
        let views = views.of(policy);
        if views.len() >= MAX_VIEWS {
            views.clear();
        }
        views.insert(set, Arc::clone(&view));
        Some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn message(value: Value) -> String {
        ToolPolicy::from_json(&value).unwrap_err().to_string()
    }

    /// The reference matcher: `*` tried at every length, recursively.
    fn reference(glob: &[char], id: &[char]) -> bool {
        match glob.split_first() {
            None => id.is_empty(),
            Some((&'*', rest)) => (0..=id.len()).any(|skip| reference(rest, &id[skip..])),
            Some((c, rest)) => id.first() == Some(c) && reference(rest, &id[1..]),
        }
    }

    proptest! {
        #[test]
        fn the_glob_matcher_agrees_with_the_reference(glob in "[ab.*]{1,8}", id in "[ab.]{0,10}") {
            let compiled = Glob::new(&glob, "").unwrap();
            let chars: Vec<char> = glob.chars().collect();
            let id_chars: Vec<char> = id.chars().collect();
            prop_assert_eq!(compiled.matches(&id), reference(&chars, &id_chars), "{} against {}", glob, id);
        }
    }

    #[test]
    fn globs_match_per_server_and_across() {
        let policy = ToolPolicy::from_json(&json!({"rules": [
            {"allow": ["notes.*", "*.read_*", "time.now"]}
        ]}))
        .unwrap();
        for (id, allowed) in [
            ("notes.search", true),
            ("notes2.search", false),
            ("docs.read_page", true),
            ("docs.write_page", false),
            ("time.now", true),
            ("time.nowhere", false),
        ] {
            assert_eq!(policy.allows(None, id), allowed, "{id}");
        }
    }

    #[test]
    fn conditions_select_callers_by_subject_client_scopes_and_claims() {
        let policy = ToolPolicy::from_json(&json!({"rules": [
            {"allow": ["eng.*"], "when": {"groups": ["eng", "sre"]}},
            {"allow": ["ops.*"], "when": {"roles": ["admin"], "scope": ["ops:read", "ops:write"]}},
            {"allow": ["app.*"], "when": {"client_id": ["app"], "claims": {"dept": ["r&d"]}}},
            {"allow": ["me.*"], "when": {"sub": ["alice"]}}
        ]}))
        .unwrap();
        let base = Caller::new("https://a.example", "bob");
        let eng = base.clone().with_claim("groups", ["sre"]);
        assert!(policy.allows(Some(&eng), "eng.x"));
        assert!(!policy.allows(Some(&base), "eng.x"));
        let admin = base.clone().with_claim("roles", ["admin"]);
        assert!(!policy.allows(Some(&admin.clone().with_scopes(["ops:read"])), "ops.x"));
        assert!(policy.allows(Some(&admin.with_scopes(["ops:read", "ops:write"])), "ops.x"));
        let app = base.clone().with_client_id("app");
        assert!(!policy.allows(Some(&app), "app.x"));
        assert!(policy.allows(Some(&app.with_claim("dept", ["r&d"])), "app.x"));
        assert!(policy.allows(Some(&Caller::new("https://a.example", "alice")), "me.x"));
        assert!(!policy.allows(Some(&base), "me.x"));
        assert!(!policy.allows(None, "me.x"));
    }

    #[test]
    fn a_bad_policy_is_refused_at_its_pointer() {
        for (policy, expected) in [
            (
                json!([]),
                "at /toolmodelPolicy: expected an object with \"rules\"",
            ),
            (
                json!({"rules": []}),
                "at /toolmodelPolicy/rules: expected a non-empty array of rules",
            ),
            (
                json!({"rule": []}),
                "at /toolmodelPolicy/rule: unknown key \"rule\": did you mean \"rules\"?",
            ),
            (
                json!({"rules": [{"allow": ["notes.*", "notes/x"]}]}),
                "at /toolmodelPolicy/rules/0/allow/1: glob \"notes/x\" holds '/', which no tool ID holds: a glob is a tool ID (server.tool, of A-Z a-z 0-9 _ - .) in which * stands for any run of characters",
            ),
            (
                json!({"rules": [{"allow": [""]}]}),
                "at /toolmodelPolicy/rules/0/allow/0: an empty glob matches no tool ID",
            ),
            (
                json!({"rules": [{"alow": ["x"]}]}),
                "at /toolmodelPolicy/rules/0/alow: unknown key \"alow\": did you mean \"allow\"?",
            ),
            (
                json!({"rules": [{"allow": ["x"], "when": {"grops": ["eng"]}}]}),
                "at /toolmodelPolicy/rules/0/when/grops: unknown key \"grops\": did you mean \"groups\"?",
            ),
            (
                json!({"rules": [{"allow": ["x"], "when": {"clientId": ["a"]}}]}),
                "at /toolmodelPolicy/rules/0/when/clientId: unknown key \"clientId\": did you mean \"client_id\"?",
            ),
            (
                json!({"rules": [{"allow": ["x"], "when": {}}]}),
                "at /toolmodelPolicy/rules/0/when: an empty \"when\": leave it out for a rule that applies to everyone",
            ),
            (
                json!({"rules": [{"allow": ["x"], "when": {"sub": "alice"}}]}),
                "at /toolmodelPolicy/rules/0/when/sub: expected a non-empty array of strings",
            ),
            (
                json!({"rules": [{"allow": ["x"], "when": {"claims": {"a/b": [1]}}}]}),
                "at /toolmodelPolicy/rules/0/when/claims/a~1b/0: expected a string",
            ),
        ] {
            assert_eq!(message(policy), expected);
        }
    }

    #[test]
    fn rules_on_callers_are_refused_without_authorization_and_others_are_not() {
        let open = ToolPolicy::from_json(&json!({"rules": [{"allow": ["*"]}]})).unwrap();
        assert!(open.check_without_authorization().is_ok());
        let claims = ToolPolicy::from_json(
            &json!({"rules": [{"allow": ["*"]}, {"allow": ["x"], "when": {"sub": ["a"]}}]}),
        )
        .unwrap();
        assert_eq!(
            claims
                .check_without_authorization()
                .unwrap_err()
                .to_string(),
            "at /toolmodelPolicy/rules/1/when: a rule on the caller's claims or scopes needs authorization (the gateway checks no access token, so no request has a caller): serve with authorization (--auth-issuer), or leave \"when\" out to allow the tools to everyone"
        );
    }

    #[test]
    fn sets_of_more_than_64_rules_keep_every_bit() {
        let rules: Vec<Value> = (0..130)
            .map(|i| json!({"allow": [format!("s{i}.*")], "when": {"sub": [format!("u{i}")]}}))
            .collect();
        let policy = ToolPolicy::from_json(&json!({ "rules": rules })).unwrap();
        let caller = Caller::new("i", "u129");
        let set = policy.applying(Some(&caller));
        assert!(set.holds(129) && !set.holds(128) && !set.holds(1));
        assert!(policy.allows_in(&set, "s129.t"));
        assert!(!policy.allows_in(&set, "s1.t"));
    }
}
