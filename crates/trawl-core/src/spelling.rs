//! "Did you mean": the nearest of the names a setting, route or engine can have to one
//! given that is none of them, so a typo is answered with its fix.

/// The candidate closest to `given` when it is close enough to be a typo of it (Jaro-Winkler
/// similarity of at least 0.8, case ignored), else `None`.
pub fn did_you_mean<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let given = given.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&given, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` (did you mean `X`?)` for [`did_you_mean`], or nothing.
pub fn did_you_mean_note<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(given, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_fix_and_a_stranger_finds_nothing() {
        let keys = ["searxng_url", "user_agent", "max_bytes"];
        assert_eq!(did_you_mean("serxng_url", keys), Some("searxng_url"));
        assert_eq!(did_you_mean("User_Agnet", keys), Some("user_agent"));
        assert_eq!(did_you_mean("colour", keys), None);
        assert_eq!(
            did_you_mean_note("acadmic", ["web", "academic"]),
            " (did you mean `academic`?)"
        );
    }
}
