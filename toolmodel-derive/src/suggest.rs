//! "Did you mean": the known key closest to an unknown one.

/// The candidate closest to `unknown` (optimal string alignment distance: insertions,
/// deletions, substitutions and swaps of neighbours), when close enough to be a likely typo: at
/// most 3 edits, and at most a third of the longer word.
pub fn closest<'a>(unknown: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|&candidate| (strsim::osa_distance(unknown, candidate), candidate))
        .filter(|&(edits, candidate)| {
            let longer = unknown.chars().count().max(candidate.chars().count());
            edits <= 3 && edits * 3 <= longer
        })
        .min_by_key(|&(edits, _)| edits)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_key() {
        let keys = [
            "name",
            "namespace",
            "version",
            "description",
            "output",
            "input",
        ];
        assert_eq!(closest("namspace", &keys), Some("namespace"));
        assert_eq!(closest("nmae", &keys), Some("name"));
        assert_eq!(closest("descripton", &keys), Some("description"));
        assert_eq!(closest("ouptut", &keys), Some("output"));
        assert_eq!(closest("colour", &keys), None);
        assert_eq!(closest("x", &keys), None);
    }
}
