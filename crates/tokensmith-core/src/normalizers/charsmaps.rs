//! The precompiled charsmaps of the four normalization rules, stored with the crate.
//!
//! [`super::charsmap_builder`] builds them from the Unicode tables, which takes one to two
//! seconds per rule: every process that trained or normalized with a rule paid it once, a
//! fifth of training a 50 MB corpus. The files in `charsmaps/` are what it builds; the test
//! below builds each again and compares, so they cannot drift from the builder (after a
//! change to it or to the Unicode crates, rewrite them with
//! `cargo run --release -p tokensmith-core --example write_charsmaps`).

use super::charsmap_builder::Rule;

/// The stored charsmap of `rule`.
pub fn stored(rule: Rule) -> &'static [u8] {
    match rule {
        Rule::NmtNfkc => include_bytes!("charsmaps/nmt_nfkc.bin"),
        Rule::Nfkc => include_bytes!("charsmaps/nfkc.bin"),
        Rule::NmtNfkcCf => include_bytes!("charsmaps/nmt_nfkc_cf.bin"),
        Rule::NfkcCf => include_bytes!("charsmaps/nfkc_cf.bin"),
    }
}

/// The file `stored(rule)` is read from, relative to the crate.
pub fn file_name(rule: Rule) -> String {
    format!("src/normalizers/charsmaps/{}.bin", rule.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::charsmap_builder::build_charsmap;

    #[test]
    fn stored_charsmaps_are_what_the_builder_builds() {
        for rule in Rule::ALL {
            let built = build_charsmap(rule).unwrap();
            assert!(
                built == stored(rule),
                "{} differs from the builder's charsmap of {}; rewrite it with `cargo run \
                 --release -p tokensmith-core --example write_charsmaps`",
                file_name(rule),
                rule.name()
            );
        }
    }
}
