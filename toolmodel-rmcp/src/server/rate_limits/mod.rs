//! [`RateLimits`]: token buckets per user, per tool, per upstream (or global), checked before
//! a call reaches its handler or upstream; kept in this process, or shared by the replicas
//! of a server through Redis (feature `redis`, [`RateLimits::shared_through_redis`]).
//!
//! `bucket` holds the arithmetic (one bucket, and the check of all the buckets of a call at
//! once), `local` the buckets of one process, `shared` the Redis script and the fallback to
//! `local` while Redis is out of reach.

mod bucket;
mod local;
#[cfg(feature = "redis")]
mod shared;

use std::{fmt, sync::Arc};

use serde_json::Value;
use toolmodel::Caller;

use self::bucket::{Limit, Verdict};
use self::local::LocalBuckets;
pub use self::local::MAX_LOCAL_BUCKETS;
use super::tool_policy::{Glob, check_keys, object, policy_error, read_rules, strings};
use crate::error::Error;

/// The top-level key of a federation configuration that holds [`RateLimits`].
pub const LIMITS_KEY: &str = "toolmodelLimits";

/// The keys of a rule.
const RULE_KEYS: [&str; 4] = ["per", "tools", "rate", "burst"];

/// What a rule's buckets are kept per.
const PER_VALUES: [&str; 3] = ["user", "tool", "upstream"];

/// Rate limits: token buckets (a `rate` of tokens a second added continuously, up to
/// `burst`), one per user, per tool, per upstream, per user and tool, ... as each rule says;
/// a call takes one token from every bucket of every rule that applies to it, or, when one
/// of them is empty, from none and is refused. JSON: the top-level `toolmodelLimits` of a
/// gateway's configuration; the guide's
/// [Rate limits](crate::guide::mcp_backends#rate-limits) has the whole story.
///
/// - `per` lists what a rule keeps a bucket for: `"user"` (the verified caller, issuer and
///   subject; without authorization every request is the one anonymous user), `"tool"` (the
///   tool's ID, `server.tool`), `"upstream"` (the server of the tool, the namespace of a
///   local tool); `[]` or no `per`: one bucket for everyone.
/// - `tools` (globs over tool IDs, as [`ToolPolicy`](super::ToolPolicy)'s) limits the rule
///   to those tools; without it the rule applies to every call.
/// - A rule with neither `tools` nor `"tool"` or `"upstream"` in `per` is a **request
///   rule**: over HTTP it counts every HTTP request that carries a JSON-RPC request (any
///   method), and one over the limit is refused whole, `429 Too Many Requests` with
///   `Retry-After`; over stdio it counts `tools/call`s. Every other rule is a **call rule**:
///   it counts the `tools/call`s of the tools it applies to, and one over the limit is
///   answered with an `isError` result naming the rule and when to retry, before it reaches
///   the handler or upstream. A tool the caller may not see (a [`ToolPolicy`](super::ToolPolicy))
///   and a tool that does not exist are never counted: their call fails as unknown.
/// - In one process at most [`MAX_LOCAL_BUCKETS`] buckets are kept: a bucket that filled
///   up again is dropped (it is the same as a new one); at the cap, a new key's calls count
///   against one overflow bucket of its rule until room is made, so no stream of new users
///   or tools grows the memory without bound.
///
/// ```
/// use serde_json::json;
/// use toolmodel::Toolbox;
/// use toolmodel_rmcp::{ToolboxServer, server::RateLimits};
///
/// let limits = RateLimits::from_json(&json!({"rules": [
///     {"per": ["user"], "rate": 20, "burst": 40},
///     {"per": ["user", "tool"], "tools": ["search.*"], "rate": 1, "burst": 5},
///     {"per": ["upstream"], "rate": 100, "burst": 100}
/// ]}))?;
/// assert_eq!(limits.len(), 3);
/// let server = ToolboxServer::new(Toolbox::builder().build()?).with_rate_limits(limits);
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RateLimits {
    inner: Arc<Inner>,
}

struct Inner {
    rules: Vec<Rule>,
    local: LocalBuckets,
    #[cfg(feature = "redis")]
    shared: Option<shared::Shared>,
}

impl fmt::Debug for RateLimits {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = formatter.debug_struct("RateLimits");
        debug.field("rules", &self.inner.rules.len());
        #[cfg(feature = "redis")]
        debug.field("shared", &self.inner.shared.is_some());
        debug.finish_non_exhaustive()
    }
}

impl PartialEq for RateLimits {
    /// The same rules (whatever their buckets hold).
    fn eq(&self, other: &Self) -> bool {
        self.inner.rules == other.inner.rules
    }
}

/// One rule.
#[derive(Debug, PartialEq)]
struct Rule {
    user: bool,
    tool: bool,
    upstream: bool,
    /// `None`: every tool.
    tools: Option<Vec<Glob>>,
    limit: Limit,
}

impl Rule {
    /// Whether it counts HTTP requests (the [type docs](RateLimits)).
    fn is_request_rule(&self) -> bool {
        self.tools.is_none() && !self.tool && !self.upstream
    }

    fn read(value: &Value, pointer: &str) -> Result<Self, Error> {
        let rule = object(
            value,
            pointer,
            "a rule: an object with \"rate\" and \"burst\" (and \"per\", \"tools\")",
        )?;
        check_keys(rule, &RULE_KEYS, pointer)?;
        let (mut user, mut tool, mut upstream) = (false, false, false);
        if let Some(per) = rule.get("per") {
            let at = format!("{pointer}/per");
            let items = per
                .as_array()
                .ok_or_else(|| policy_error(&at, "expected an array of \"user\", \"tool\", \"upstream\" ([] for one bucket for everyone)"))?;
            for (index, item) in items.iter().enumerate() {
                let at = format!("{at}/{index}");
                let seen = match item.as_str() {
                    Some("user") => &mut user,
                    Some("tool") => &mut tool,
                    Some("upstream") => &mut upstream,
                    Some(other) => {
                        let near = match crate::suggest::nearest(other, PER_VALUES).first() {
                            Some(near) => format!(": did you mean {near:?}?"),
                            None => String::new(),
                        };
                        return Err(policy_error(
                            &at,
                            format!("{other:?} is not \"user\", \"tool\" or \"upstream\"{near}"),
                        ));
                    }
                    None => return Err(policy_error(&at, "expected a string")),
                };
                if *seen {
                    return Err(policy_error(&at, "listed twice"));
                }
                *seen = true;
            }
        }
        let tools = rule
            .get("tools")
            .map(|tools| {
                let at = format!("{pointer}/tools");
                strings(tools, &at)?
                    .iter()
                    .enumerate()
                    .map(|(index, glob)| Glob::new(glob, &format!("{at}/{index}")))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let rate_at = format!("{pointer}/rate");
        let rate = rule
            .get("rate")
            .and_then(Value::as_f64)
            .filter(|rate| rate.is_finite() && *rate > 0.0)
            .ok_or_else(|| {
                policy_error(
                    &rate_at,
                    "expected \"rate\": the tokens added per second, a number > 0 (0.5: one call every 2 s)",
                )
            })?;
        let burst = rule
            .get("burst")
            .and_then(Value::as_u64)
            .filter(|burst| (1..=u64::from(u32::MAX)).contains(burst))
            .ok_or_else(|| {
                policy_error(
                    &format!("{pointer}/burst"),
                    "expected \"burst\": the most calls admitted at once, an integer >= 1",
                )
            })?;
        #[allow(clippy::cast_precision_loss)]
        let burst = burst as f64;
        Ok(Self {
            user,
            tool,
            upstream,
            tools,
            limit: Limit { rate, burst },
        })
    }

    /// Whether it applies to the call of the tool `id`.
    fn applies_to(&self, id: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|globs| globs.iter().any(|glob| glob.matches(id)))
    }

    /// Its bucket's key for `user` (`issuer subject`, empty for anonymous), `id` and
    /// `upstream`: never empty.
    fn key(&self, user: &str, id: &str, upstream: &str) -> String {
        let mut key = String::with_capacity(2 + user.len() + id.len() + upstream.len() + 6);
        key.push('*');
        if self.user {
            key.push_str("|u:");
            key.push_str(user);
        }
        if self.tool {
            key.push_str("|t:");
            key.push_str(id);
        }
        if self.upstream {
            key.push_str("|s:");
            key.push_str(upstream);
        }
        key
    }

    /// What it is, for a refusal: `per user and tool, 5/s, burst 10`.
    fn describe(&self) -> String {
        let per: Vec<&str> = [
            (self.user, "user"),
            (self.tool, "tool"),
            (self.upstream, "upstream"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        let per = if per.is_empty() {
            "for everyone".to_owned()
        } else {
            format!("per {}", per.join(" and "))
        };
        format!(
            "{per}: {} per second, burst {}",
            self.limit.rate, self.limit.burst
        )
    }
}

/// Why a call or request was refused: which rule, and when to retry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Refused {
    /// The rule's index in `rules`.
    pub(crate) rule: usize,
    /// What the rule is ([`Rule::describe`]).
    pub(crate) what: String,
    /// Seconds until the bucket holds a token.
    pub(crate) after: f64,
}

impl Refused {
    /// `Retry-After`'s whole seconds (RFC 9110, 10.2.3): the wait rounded up, at least 1.
    pub(crate) fn retry_after_secs(&self) -> u64 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let secs = self.after.ceil().max(1.0) as u64;
        secs
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "rate limit /{LIMITS_KEY}/rules/{} ({}) reached; retry in {:.2} s",
            self.rule, self.what, self.after
        )
    }
}

/// Which rules a check counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counted<'a> {
    /// The request rules alone: an HTTP request at the front.
    Request,
    /// The call rules that apply to the tool `id` of `upstream` (`server`, or the namespace
    /// of a local tool), and the request rules too when `with_request_rules` (no HTTP front
    /// counted the request: stdio).
    Call {
        id: &'a str,
        upstream: &'a str,
        with_request_rules: bool,
    },
}

impl RateLimits {
    /// Reads rate limits: the value of the top-level `toolmodelLimits` of a configuration,
    /// `{"rules": [{"per": [...], "tools": [glob, ...], "rate": r, "burst": b}, ...]}` (the
    /// [type docs](Self) say what each means). Every glob is checked and cut here, once.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the JSON Pointer of the value (under `/toolmodelLimits`): a
    /// value of the wrong type, an empty `rules` or `tools`, a `per` value other than
    /// `"user"`, `"tool"`, `"upstream"` (or one listed twice), a `rate` that is not a
    /// positive number, a `burst` that is not an integer of at least 1, a glob with a
    /// character no tool ID holds, an unknown key (with the nearest known one: `"brust"`:
    /// did you mean `"burst"`?).
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        let rules = read_rules(value, LIMITS_KEY, Rule::read)?;
        Ok(Self {
            inner: Arc::new(Inner {
                rules,
                local: LocalBuckets::default(),
                #[cfg(feature = "redis")]
                shared: None,
            }),
        })
    }

    /// The number of rules.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.rules.len()
    }

    /// Whether there is no rule (never: [`from_json`](Self::from_json) refuses it).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.rules.is_empty()
    }

    /// Whether some rule is a request rule (the [type docs](Self)): the HTTP front checks
    /// them.
    pub(crate) fn has_request_rules(&self) -> bool {
        self.inner.rules.iter().any(Rule::is_request_rule)
    }

    /// Takes a token from every bucket `counted` names for `caller` (`None`: the anonymous
    /// user), or from none.
    ///
    /// # Errors
    ///
    /// [`Refused`] naming the rule whose bucket is empty (the one to wait longest for).
    pub(crate) async fn check(
        &self,
        caller: Option<&Caller>,
        counted: Counted<'_>,
    ) -> Result<(), Refused> {
        let user = caller.map_or_else(String::new, |caller| {
            format!("{} {}", caller.issuer(), caller.subject())
        });
        let (id, upstream, requests, calls) = match counted {
            Counted::Request => ("", "", true, false),
            Counted::Call {
                id,
                upstream,
                with_request_rules,
            } => (id, upstream, with_request_rules, true),
        };
        let mut keys = Vec::new();
        for (index, rule) in self.inner.rules.iter().enumerate() {
            let counts = if rule.is_request_rule() {
                requests
            } else {
                calls && rule.applies_to(id)
            };
            if counts {
                keys.push((index, rule.key(&user, id, upstream), rule.limit));
            }
        }
        if keys.is_empty() {
            return Ok(());
        }
        let keys: Vec<(usize, &str, Limit)> = keys
            .iter()
            .map(|(index, key, limit)| (*index, key.as_str(), *limit))
            .collect();
        #[cfg(feature = "redis")]
        let verdict = match &self.inner.shared {
            Some(shared) => match shared.take(&keys).await {
                Some(verdict) => verdict,
                None => self.inner.local.take(&keys),
            },
            None => self.inner.local.take(&keys),
        };
        #[cfg(not(feature = "redis"))]
        let verdict = self.inner.local.take(&keys);
        match verdict {
            Verdict::Admitted => Ok(()),
            Verdict::Refused { index, after } => {
                let rule = keys.get(index).map_or(0, |(rule, _, _)| *rule);
                crate::telemetry::metrics::rate_limited();
                Err(Refused {
                    rule,
                    what: self
                        .inner
                        .rules
                        .get(rule)
                        .map(Rule::describe)
                        .unwrap_or_default(),
                    after,
                })
            }
        }
    }

    /// The same limits, their buckets shared by every replica that uses the Redis (or Valkey)
    /// server at `url` (`redis://HOST:PORT[/DB]` or `rediss://...`), keys under
    /// [`DEFAULT_REDIS_LIMIT_PREFIX`]: one round trip per check (a Lua script over all the
    /// buckets of the call, run with `EVALSHA`, on Redis's clock), each bucket's key expiring
    /// once it would be full again. The connection has a 1 s connection and response timeout.
    ///
    /// While Redis cannot be reached or answers an error, each replica counts in its own
    /// buckets (no check waits past the 1 s timeout; after a failure Redis is tried again
    /// once a second, by one check at a time); one WARN line of target
    /// `toolmodel_rmcp::limits` is logged when an outage begins and one INFO line when it
    /// ends, and each check counted locally meanwhile is counted in
    /// `toolmodel.rate_limits.fallbacks`. When Redis answers again, the buckets are shared
    /// again by themselves.
    ///
    /// # Errors
    ///
    /// [`Error::LimitStore`] when `url` is not a Redis URL, or the server cannot be reached
    /// within 1 s at the start (the message shows the URL without its password).
    #[cfg(feature = "redis")]
    pub async fn shared_through_redis(self, url: &str) -> Result<Self, Error> {
        self.shared_through_redis_with_prefix(url, DEFAULT_REDIS_LIMIT_PREFIX)
            .await
    }

    /// As [`shared_through_redis`](Self::shared_through_redis), with keys under `prefix`
    /// (servers with different prefixes share no bucket).
    ///
    /// # Errors
    ///
    /// As [`shared_through_redis`](Self::shared_through_redis).
    #[cfg(feature = "redis")]
    pub async fn shared_through_redis_with_prefix(
        self,
        url: &str,
        prefix: &str,
    ) -> Result<Self, Error> {
        let shared = shared::Shared::connect(url, prefix).await?;
        let Inner { rules, local, .. } =
            Arc::try_unwrap(self.inner).unwrap_or_else(|inner| Inner {
                rules: inner.rules.iter().map(Rule::clone_rule).collect(),
                local: LocalBuckets::default(),
                shared: None,
            });
        Ok(Self {
            inner: Arc::new(Inner {
                rules,
                local,
                shared: Some(shared),
            }),
        })
    }
}

/// The prefix of the Redis keys of [`RateLimits::shared_through_redis`]: `toolmodel:limits`
/// (each key is `{toolmodel:limits}:<rule>:<bucket>`, the braces a Redis Cluster hash tag that
/// keeps the buckets of a call on one node).
#[cfg(feature = "redis")]
pub const DEFAULT_REDIS_LIMIT_PREFIX: &str = "toolmodel:limits";

#[cfg(feature = "redis")]
impl Rule {
    fn clone_rule(&self) -> Self {
        Self {
            user: self.user,
            tool: self.tool,
            upstream: self.upstream,
            tools: self.tools.clone(),
            limit: self.limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(value: Value) -> String {
        RateLimits::from_json(&value).unwrap_err().to_string()
    }

    #[test]
    fn bad_limits_are_refused_at_their_pointer() {
        for (limits, expected) in [
            (
                json!({"rule": []}),
                "at /toolmodelLimits/rule: unknown key \"rule\": did you mean \"rules\"?",
            ),
            (
                json!({"rules": []}),
                "at /toolmodelLimits/rules: expected a non-empty array of rules",
            ),
            (
                json!({"rules": [{"rate": 1, "brust": 2}]}),
                "at /toolmodelLimits/rules/0/brust: unknown key \"brust\": did you mean \"burst\"?",
            ),
            (
                json!({"rules": [{"rate": 0, "burst": 2}]}),
                "at /toolmodelLimits/rules/0/rate: expected \"rate\": the tokens added per second, a number > 0 (0.5: one call every 2 s)",
            ),
            (
                json!({"rules": [{"rate": 1, "burst": 0.5}]}),
                "at /toolmodelLimits/rules/0/burst: expected \"burst\": the most calls admitted at once, an integer >= 1",
            ),
            (
                json!({"rules": [{"rate": 1, "burst": 1, "per": ["usr"]}]}),
                "at /toolmodelLimits/rules/0/per/0: \"usr\" is not \"user\", \"tool\" or \"upstream\": did you mean \"user\"?",
            ),
            (
                json!({"rules": [{"rate": 1, "burst": 1, "per": ["user", "user"]}]}),
                "at /toolmodelLimits/rules/0/per/1: listed twice",
            ),
            (
                json!({"rules": [{"rate": 1, "burst": 1, "tools": ["a/b"]}]}),
                "at /toolmodelLimits/rules/0/tools/0: glob \"a/b\" holds '/', which no tool ID holds: a glob is a tool ID (server.tool, of A-Z a-z 0-9 _ - .) in which * stands for any run of characters",
            ),
        ] {
            assert_eq!(message(limits), expected);
        }
    }

    #[tokio::test]
    async fn users_tools_and_upstreams_have_buckets_of_their_own() {
        let limits = RateLimits::from_json(&json!({"rules": [
            {"per": ["user", "tool"], "tools": ["notes.*"], "rate": 0.001, "burst": 1},
            {"per": ["upstream"], "tools": ["time.*"], "rate": 0.001, "burst": 2}
        ]}))
        .unwrap();
        let call = |id, upstream| Counted::Call {
            id,
            upstream,
            with_request_rules: false,
        };
        let alice = Caller::new("https://i", "alice");
        let bob = Caller::new("https://i", "bob");
        assert!(
            limits
                .check(Some(&alice), call("notes.a", "notes"))
                .await
                .is_ok()
        );
        let refused = limits
            .check(Some(&alice), call("notes.a", "notes"))
            .await
            .unwrap_err();
        assert_eq!(refused.rule, 0);
        assert!(refused.to_string().starts_with(
            "rate limit /toolmodelLimits/rules/0 (per user and tool: 0.001 per second, burst 1) reached; retry in "
        ), "{refused}");
        assert!(refused.retry_after_secs() > 900);
        assert!(
            limits
                .check(Some(&alice), call("notes.b", "notes"))
                .await
                .is_ok()
        );
        assert!(
            limits
                .check(Some(&bob), call("notes.a", "notes"))
                .await
                .is_ok()
        );
        assert!(limits.check(None, call("notes.a", "notes")).await.is_ok());
        // No rule applies to other tools, nor at the HTTP front.
        for _ in 0..5 {
            assert!(
                limits
                    .check(Some(&alice), call("docs.a", "docs"))
                    .await
                    .is_ok()
            );
            assert!(limits.check(Some(&alice), Counted::Request).await.is_ok());
        }
        // Per upstream: every user and tool of `time` share two tokens.
        assert!(
            limits
                .check(Some(&alice), call("time.now", "time"))
                .await
                .is_ok()
        );
        assert!(
            limits
                .check(Some(&bob), call("time.zone", "time"))
                .await
                .is_ok()
        );
        assert_eq!(
            limits
                .check(None, call("time.now", "time"))
                .await
                .unwrap_err()
                .rule,
            1
        );
    }

    #[tokio::test]
    async fn request_rules_count_at_the_front_and_over_stdio() {
        let limits = RateLimits::from_json(&json!({"rules": [
            {"per": ["user"], "rate": 0.001, "burst": 2}
        ]}))
        .unwrap();
        assert!(limits.has_request_rules());
        let stdio = Counted::Call {
            id: "a.b",
            upstream: "a",
            with_request_rules: true,
        };
        let http = Counted::Call {
            id: "a.b",
            upstream: "a",
            with_request_rules: false,
        };
        assert!(limits.check(None, Counted::Request).await.is_ok());
        assert!(limits.check(None, http).await.is_ok());
        assert!(limits.check(None, stdio).await.is_ok());
        assert!(limits.check(None, stdio).await.is_err());
        assert!(limits.check(None, Counted::Request).await.is_err());
    }
}
