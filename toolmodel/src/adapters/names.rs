//! Tool names on each target, and the mapping of names a target does not allow (the rules
//! are in the [`adapters`](super) module docs, "Tool names").

use std::collections::{BTreeMap, BTreeSet};

use super::target::Target;

/// The name rule of a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// `[A-Za-z0-9_.-]{1,128}`.
    Mcp,
    /// `[A-Za-z0-9_-]{1,64}`.
    OpenAi,
    /// `[A-Za-z_][A-Za-z0-9_.:-]{0,127}`.
    Gemini,
}

impl NameRule {
    pub(crate) const fn of(target: Target) -> Self {
        match target {
            Target::Mcp => Self::Mcp,
            Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic => Self::OpenAi,
            Target::Gemini => Self::Gemini,
        }
    }

    const fn max_len(self) -> usize {
        match self {
            Self::Mcp | Self::Gemini => 128,
            Self::OpenAi => 64,
        }
    }

    const fn allows_char(self, ch: char) -> bool {
        ch.is_ascii_alphanumeric()
            || ch == '_'
            || ch == '-'
            || (ch == '.' && matches!(self, Self::Mcp | Self::Gemini))
            || (ch == ':' && matches!(self, Self::Gemini))
    }

    fn allows_first(self, ch: char) -> bool {
        match self {
            Self::Gemini => ch.is_ascii_alphabetic() || ch == '_',
            Self::Mcp | Self::OpenAi => self.allows_char(ch),
        }
    }

    /// Whether the target accepts `name` as it is.
    ///
    /// Every allowed character is ASCII, so the name is read as bytes: a byte of a multi-byte
    /// character (128 and above) is never allowed, and bytes count characters.
    pub(crate) fn allows(self, name: &str) -> bool {
        let Some((&first, rest)) = name.as_bytes().split_first() else {
            return false;
        };
        let allowed = self.allowed_bytes();
        name.len() <= self.max_len()
            && self.allows_first(char::from(first))
            && rest.iter().all(|&b| b < 128 && allowed >> b & 1 == 1)
    }

    /// [`NameRule::allows_char`] as a set of the 128 ASCII bytes, bit `b` for byte `b`.
    const fn allowed_bytes(self) -> u128 {
        const fn set(rule: NameRule) -> u128 {
            let mut set = 0;
            let mut b = 0u8;
            while b < 128 {
                if rule.allows_char(b as char) {
                    set |= 1 << b;
                }
                b += 1;
            }
            set
        }
        const MCP: u128 = set(NameRule::Mcp);
        const OPENAI: u128 = set(NameRule::OpenAi);
        const GEMINI: u128 = set(NameRule::Gemini);
        match self {
            Self::Mcp => MCP,
            Self::OpenAi => OPENAI,
            Self::Gemini => GEMINI,
        }
    }

    /// Steps 2–4 of the mapping: a name the target allows.
    pub(crate) fn map(self, base: &str) -> String {
        if self.allows(base) {
            return base.to_owned();
        }
        let mut out: String = base
            .chars()
            .map(|c| if self.allows_char(c) { c } else { '_' })
            .collect();
        if out.is_empty() {
            out.push('_');
        }
        if let Some(first) = out.chars().next()
            && !self.allows_first(first)
        {
            out.insert(0, '_');
        }
        let max = self.max_len();
        if out.len() > max {
            // ASCII only from here on, so byte truncation is character truncation.
            out.truncate(max - 9);
            out.push('_');
            out.push_str(&format!("{:08x}", fold(fnv1a64(base.as_bytes()))));
        }
        out
    }

    /// `name` with the suffix `_{n}`, shortened so that the result fits.
    fn with_suffix(self, name: &str, n: usize) -> String {
        let suffix = format!("_{n}");
        let keep = self.max_len().saturating_sub(suffix.len()).min(name.len());
        let mut out = name.get(..keep).unwrap_or(name).to_owned();
        out.push_str(&suffix);
        out
    }
}

/// The 64-bit FNV-1a hash (Fowler–Noll–Vo): stable across platforms and Rust releases, unlike
/// `std`'s `DefaultHasher`.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

fn fold(hash: u64) -> u32 {
    // Truncation is the point: the upper half is xor-folded into the lower half.
    #[allow(clippy::cast_possible_truncation)]
    let folded = (hash ^ (hash >> 32)) as u32;
    folded
}

/// One tool of a [`NameMap`]: the name it has on the target, and which tool it is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameEntry {
    /// The name sent to the target (and that calls coming back carry).
    pub target_name: String,
    /// The tool's own name ([`Tool::name`](crate::Tool::name)).
    pub original: String,
    /// The tool's namespace ([`Tool::namespace`](crate::Tool::namespace)).
    pub namespace: Option<String>,
    /// The tool's index in the slice given to [`convert_all`](super::convert_all) (0 for
    /// [`convert`](super::convert)).
    pub index: usize,
}

impl NameEntry {
    /// Whether the target name differs from the tool's own name.
    #[must_use]
    pub fn is_renamed(&self) -> bool {
        self.target_name != self.original
    }
}

/// The names a batch of tools has on one target, for routing calls back to the tools.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::Tool;
/// use toolmodel::adapters::{ConvertOptions, Target, convert_all};
///
/// let tools = [
///     Tool::from_mcp_json(&json!({"name": "math.factorial", "inputSchema": {"type": "object"}}))?,
///     Tool::from_mcp_json(&json!({"name": "math_factorial", "inputSchema": {"type": "object"}}))?,
/// ];
/// let batch = convert_all(&tools, Target::OpenAiChat, &ConvertOptions::default());
/// // The valid name keeps its spelling; the mapped one steps aside.
/// assert_eq!(batch.names.get("math_factorial").map(|e| e.index), Some(1));
/// assert_eq!(batch.names.get("math_factorial_2").map(|e| e.original.as_str()), Some("math.factorial"));
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMap {
    /// In the order of the tools given.
    entries: Vec<NameEntry>,
    /// Target name to index in `entries`.
    by_target: BTreeMap<String, usize>,
}

/// The target name of one tool converted alone: what [`NameMap::assign`] gives a list of one
/// (there is no other name to collide with), without building the map.
pub(crate) fn single(
    target: Target,
    qualified: bool,
    namespace: Option<&str>,
    name: &str,
) -> String {
    let rule = NameRule::of(target);
    match namespace {
        Some(ns) if qualified => rule.map(&format!("{ns}.{name}")),
        _ => rule.map(name),
    }
}

impl NameMap {
    /// Assigns target names to tools given as `(namespace, name)` pairs, in order.
    pub(crate) fn assign<'a, I>(target: Target, qualified: bool, tools: I) -> Self
    where
        I: IntoIterator<Item = (Option<&'a str>, &'a str)>,
    {
        let rule = NameRule::of(target);
        let bases: Vec<(Option<&str>, &str, String)> = tools
            .into_iter()
            .map(|(namespace, name)| {
                let base = match namespace {
                    Some(ns) if qualified => format!("{ns}.{name}"),
                    _ => name.to_owned(),
                };
                (namespace, name, base)
            })
            .collect();
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut assigned: Vec<Option<String>> = vec![None; bases.len()];
        // Step 5a: names the target allows keep their spelling, first come first served.
        for (slot, (_, _, base)) in assigned.iter_mut().zip(&bases) {
            if rule.allows(base) && taken.insert(base.clone()) {
                *slot = Some(base.clone());
            }
        }
        // Step 5b: every other name is mapped, then suffixed until free.
        for (slot, (_, _, base)) in assigned.iter_mut().zip(&bases) {
            if slot.is_some() {
                continue;
            }
            let mapped = rule.map(base);
            let mut candidate = mapped.clone();
            let mut n = 2;
            while taken.contains(&candidate) {
                candidate = rule.with_suffix(&mapped, n);
                n += 1;
            }
            taken.insert(candidate.clone());
            *slot = Some(candidate);
        }
        let mut map = Self::default();
        for (index, ((namespace, name, _), target_name)) in
            bases.into_iter().zip(assigned).enumerate()
        {
            let target_name = target_name.unwrap_or_default();
            map.by_target.insert(target_name.clone(), index);
            map.entries.push(NameEntry {
                target_name,
                original: name.to_owned(),
                namespace: namespace.map(str::to_owned),
                index,
            });
        }
        map
    }

    /// The tool that the target name stands for.
    #[must_use]
    pub fn get(&self, target_name: &str) -> Option<&NameEntry> {
        self.by_target
            .get(target_name)
            .and_then(|&i| self.entries.get(i))
    }

    /// The target name of the tool at `index` in the batch.
    #[must_use]
    pub fn target_name(&self, index: usize) -> Option<&str> {
        self.entries.get(index).map(|e| e.target_name.as_str())
    }

    /// Every entry, in the order of the tools given.
    pub fn iter(&self) -> impl Iterator<Item = &NameEntry> {
        self.entries.iter()
    }

    /// The number of tools.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds no tool.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(target: Target, list: &[&str]) -> Vec<String> {
        let map = NameMap::assign(target, false, list.iter().map(|n| (None, *n)));
        map.iter().map(|e| e.target_name.clone()).collect()
    }

    #[test]
    fn a_single_name_is_what_a_map_of_one_assigns() {
        let long = "x".repeat(300);
        for target in Target::ALL {
            for qualified in [false, true] {
                for (namespace, name) in [
                    (None, "weather.get"),
                    (Some("github"), "search"),
                    (Some("a b"), "c/d"),
                    (None, ""),
                    (None, long.as_str()),
                    (None, "9lives"),
                ] {
                    let map = NameMap::assign(target, qualified, [(namespace, name)]);
                    assert_eq!(
                        single(target, qualified, namespace, name),
                        map.target_name(0).unwrap_or_default(),
                        "{target} {namespace:?} {name}"
                    );
                }
            }
        }
    }

    #[test]
    fn rules_per_target() {
        let openai = NameRule::OpenAi;
        assert!(openai.allows("get_weather-2"));
        assert!(!openai.allows("math.factorial"));
        assert!(!openai.allows(""));
        assert!(openai.allows(&"a".repeat(64)));
        assert!(!openai.allows(&"a".repeat(65)));
        let gemini = NameRule::Gemini;
        assert!(gemini.allows("math.factorial"));
        assert!(gemini.allows("ns:tool"));
        assert!(gemini.allows("_x"));
        assert!(!gemini.allows("1tool"));
        assert!(!gemini.allows("-tool"));
        assert!(gemini.allows(&"a".repeat(128)));
        let mcp = NameRule::Mcp;
        assert!(mcp.allows("1tool.v2"));
        assert!(!mcp.allows("a:b"));
    }

    #[test]
    fn the_documented_mapping() {
        assert_eq!(NameRule::OpenAi.map("math.factorial"), "math_factorial");
        assert_eq!(NameRule::OpenAi.map("get weather!"), "get_weather_");
        assert_eq!(NameRule::OpenAi.map("café"), "caf_");
        assert_eq!(NameRule::OpenAi.map(""), "_");
        assert_eq!(NameRule::Gemini.map("1tool"), "_1tool");
        assert_eq!(NameRule::Gemini.map("a b.c"), "a_b.c");
        let long = format!("{}.x", "a".repeat(70));
        let mapped = NameRule::OpenAi.map(&long);
        assert_eq!(mapped.len(), 64);
        assert_eq!(&mapped[..55], &"a".repeat(55));
        assert_eq!(
            &mapped[55..],
            &format!("_{:08x}", fold(fnv1a64(long.as_bytes())))
        );
    }

    #[test]
    fn fnv_known_values() {
        // Published FNV-1a 64-bit test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn valid_names_win_collisions() {
        assert_eq!(
            names(Target::OpenAiChat, &["a.b", "a_b", "a.b", "a_b"]),
            ["a_b_2", "a_b", "a_b_3", "a_b_4"]
        );
        assert_eq!(names(Target::Gemini, &["a.b", "a_b"]), ["a.b", "a_b"]);
    }

    #[test]
    fn long_collisions_stay_within_the_limit() {
        let long = "x".repeat(64);
        let list = [long.as_str(), long.as_str(), long.as_str()];
        let out = names(Target::Anthropic, &list);
        assert_eq!(out[0], long);
        assert_eq!(out[1], format!("{}_2", "x".repeat(62)));
        assert_eq!(out[2], format!("{}_3", "x".repeat(62)));
    }

    #[test]
    fn qualified_names_and_routing() {
        let map = NameMap::assign(
            Target::OpenAiChat,
            true,
            [
                (Some("github"), "search"),
                (Some("jira"), "search"),
                (None, "search"),
            ],
        );
        let got: Vec<_> = map.iter().map(|e| e.target_name.as_str()).collect();
        assert_eq!(got, ["github_search", "jira_search", "search"]);
        let entry = map.get("jira_search").unwrap();
        assert_eq!(
            (
                entry.namespace.as_deref(),
                entry.original.as_str(),
                entry.index
            ),
            (Some("jira"), "search", 1)
        );
        assert!(entry.is_renamed());
        assert_eq!(map.target_name(2), Some("search"));
        assert!(map.get("search_2").is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn mapped_names_are_valid_unique_and_deterministic(list in proptest::collection::vec("[a-c._ :é-]{0,70}", 1..12)) {
            for target in Target::ALL {
                let rule = NameRule::of(target);
                let first = names(target, &list.iter().map(String::as_str).collect::<Vec<_>>());
                let second = names(target, &list.iter().map(String::as_str).collect::<Vec<_>>());
                prop_assert_eq!(&first, &second);
                let unique: BTreeSet<_> = first.iter().collect();
                prop_assert_eq!(unique.len(), first.len());
                for (name, original) in first.iter().zip(&list) {
                    prop_assert!(rule.allows(name), "{} from {:?} on {}", name, original, target);
                }
            }
        }

        /// Reading the name as bytes says what reading it as characters says, for any string.
        #[test]
        fn allows_reads_bytes_as_the_rule_reads_characters(name in "[a-zA-Z0-9_.:/ é€😀-]{0,140}") {
            for target in Target::ALL {
                let rule = NameRule::of(target);
                let mut chars = name.chars();
                let by_chars = chars.next().is_some_and(|first| rule.allows_first(first))
                    && chars.all(|c| rule.allows_char(c))
                    && name.chars().count() <= rule.max_len();
                prop_assert_eq!(rule.allows(&name), by_chars, "{:?} on {}", name, target);
            }
        }
    }
}
