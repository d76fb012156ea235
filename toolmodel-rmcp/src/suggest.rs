//! Suggestions for a misspelled key of a configuration: [`nearest`] known keys, and
//! [`did_you_mean`] them.

/// The candidates nearest to `unknown` by optimal string alignment distance (insertions,
/// deletions, substitutions and swaps of neighbours, through `strsim`), when near enough to
/// be a likely misspelling: at most 3 edits, and at most a third of the longer word (the rule
/// of `toolmodel`'s suggestions for tool names and argument keys). Every candidate at the
/// fewest edits is kept, in the order given: `edv` is as near `env` as `dev`.
pub(crate) fn nearest<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let mut best: (usize, Vec<&'a str>) = (usize::MAX, Vec::new());
    for candidate in candidates {
        let edits = strsim::osa_distance(unknown, candidate);
        let longer = unknown.chars().count().max(candidate.chars().count());
        if edits > 3 || edits * 3 > longer || edits > best.0 {
            continue;
        }
        if edits < best.0 {
            best = (edits, Vec::new());
        }
        best.1.push(candidate);
    }
    best.1
}

/// `unknown key "KEY": did you mean "A"?` (or `"A" or "B"?`) for the `near` keys, or `None`
/// when there are none.
pub(crate) fn did_you_mean(key: &str, near: &[&str]) -> Option<String> {
    let (last, first) = near.split_last()?;
    let quoted: Vec<String> = first.iter().map(|near| format!("{near:?}")).collect();
    let choices = if quoted.is_empty() {
        format!("{last:?}")
    } else {
        format!("{} or {last:?}", quoted.join(", "))
    };
    Some(format!("unknown key {key:?}: did you mean {choices}?"))
}
