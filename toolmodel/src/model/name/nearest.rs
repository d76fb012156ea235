//! "Did you mean": the known name closest to an unknown one, for an unknown tool name or an
//! unexpected argument key.

/// The candidate closest to `unknown` by optimal string alignment distance (insertions,
/// deletions, substitutions and swaps of neighbours, through `strsim`), when close enough to be
/// a likely slip: at most 3 edits, and at most a third of the longer word. Ties go to the
/// first candidate.
pub(crate) fn nearest<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let edits = strsim::osa_distance(unknown, candidate);
        let longer = unknown.chars().count().max(candidate.chars().count());
        if edits <= 3 && edits * 3 <= longer && best.is_none_or(|(fewest, _)| edits < fewest) {
            best = Some((edits, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The served tool name closest to `unknown`: first the one whose last segment after a `.` or
/// `:` (the name without its namespace) equals `unknown`'s, as `search_notes` for `notes.search_notes`
/// or `notes.search_notes` for `search_notes`; else [`nearest`] over the whole names, then over
/// the segments.
pub(crate) fn nearest_tool<'a>(
    unknown: &str,
    served: impl Iterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    let wanted = bare_of(unknown);
    served
        .clone()
        .find(|name| *name != unknown && bare_of(name) == wanted)
        .or_else(|| nearest(unknown, served.clone()))
        .or_else(|| {
            let closest = nearest(wanted, served.clone().map(bare_of))?;
            served.clone().find(|name| bare_of(name) == closest)
        })
}

/// The name without its namespace: the part after the last `.` (an MCP name) or `:` (a tool
/// ID).
fn bare_of(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_name() {
        let keys = ["query", "tags", "limit", "description"];
        assert_eq!(nearest("tgas", keys), Some("tags"));
        assert_eq!(nearest("lmit", keys), Some("limit"));
        assert_eq!(nearest("descripton", keys), Some("description"));
        assert_eq!(nearest("colour", keys), None);
        assert_eq!(nearest("x", keys), None);
        assert_eq!(nearest("tags", []), None);
    }

    #[test]
    fn namespaces_are_looked_through() {
        let served = ["math.add", "notes.search_notes", "weather.get_weather"];
        let find = |unknown| nearest_tool(unknown, served.iter().copied());
        assert_eq!(find("search_notes"), Some("notes.search_notes"));
        assert_eq!(find("notes.search_note"), Some("notes.search_notes"));
        assert_eq!(find("get_wether"), Some("weather.get_weather"));
        assert_eq!(find("math.sub"), None);
        assert_eq!(find("delete_everything"), None);
        // `add` in another namespace is still `add`.
        assert_eq!(find("calc.add"), Some("math.add"));
    }
}
