//! SentencePiece's normalizer: the charsmap, then whitespace handling.
//!
//! Facts from sentencepiece's `normalizer.cc`, applied in this order:
//! 1. with `remove_extra_whitespaces`, leading characters that normalize to exactly `" "` are
//!    dropped (and text that is only whitespace becomes empty);
//! 2. with `add_dummy_prefix`, a space is put in front (behind, with
//!    `treat_whitespace_as_suffix`, after step 4);
//! 3. each prefix is replaced by its longest charsmap rule (or kept), leading spaces of a
//!    replacement are dropped after a space, and spaces become `▁` with `escape_whitespaces`;
//! 4. with `remove_extra_whitespaces`, trailing spaces are dropped.
//!
//! >>> "  Hello   world " -> "▁Hello▁world" (defaults, identity charsmap)
//!
//! User-defined symbols (longest match first) are copied without normalization.
//!
//! What it does not handle: the offsets from normalized to original text.

use super::precompiled::PrecompiledCharsMap;
use crate::error::Result;
use crate::formats::sentencepiece_model::NormalizerSpec;
use crate::models::unigram::PieceTrie;

/// The whitespace marker sentencepiece writes for a space.
pub const SPACE_SYMBOL: &str = "\u{2581}";

/// A normalizer built from a `NormalizerSpec`.
#[derive(Debug, Clone)]
pub struct SentencePieceNormalizer {
    charsmap: Option<PrecompiledCharsMap>,
    /// User-defined symbols, which are copied without normalization.
    user_defined: Option<PieceTrie>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
}

impl SentencePieceNormalizer {
    /// `user_defined` lists the model's user-defined symbols.
    pub fn new(
        spec: &NormalizerSpec,
        treat_whitespace_as_suffix: bool,
        user_defined: &[&str],
    ) -> Result<Self> {
        // An empty charsmap means identity, whatever the spec's name says.
        let charsmap = if spec.precompiled_charsmap.is_empty() {
            None
        } else {
            Some(PrecompiledCharsMap::parse(&spec.precompiled_charsmap)?)
        };
        let user_defined = (!user_defined.is_empty()).then(|| {
            let mut trie = PieceTrie::new();
            for (i, symbol) in user_defined.iter().enumerate() {
                trie.insert(symbol.as_bytes(), i as u32);
            }
            trie
        });
        Ok(Self {
            charsmap,
            user_defined,
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            escape_whitespaces: spec.escape_whitespaces,
            treat_whitespace_as_suffix,
        })
    }

    /// The normalized form of the longest prefix with a rule, or of the first character.
    fn normalize_prefix<'a>(&'a self, input: &'a str) -> (&'a str, usize) {
        if let Some(len) = self
            .user_defined
            .as_ref()
            .and_then(|t| t.longest_prefix(input.as_bytes()))
        {
            return (&input[..len], len);
        }
        if let Some((replacement, len)) = self
            .charsmap
            .as_ref()
            .and_then(|map| map.longest_match(input.as_bytes()))
            .filter(|&(_, len)| input.is_char_boundary(len))
        {
            return (replacement, len);
        }
        let len = input.chars().next().map_or(0, char::len_utf8);
        (&input[..len], len)
    }

    /// Normalizes `input` the way `sentencepiece::normalizer::Normalizer::Normalize` does.
    pub fn normalize(&self, mut input: &str) -> String {
        let mut out = String::with_capacity(input.len() + 3);
        if self.remove_extra_whitespaces {
            while !input.is_empty() {
                let (normalized, consumed) = self.normalize_prefix(input);
                if normalized != " " {
                    break;
                }
                input = &input[consumed..];
            }
        }
        if input.is_empty() {
            return out;
        }
        let space = if self.escape_whitespaces {
            SPACE_SYMBOL
        } else {
            " "
        };
        if !self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.push_str(space);
        }
        let mut is_prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let (normalized, consumed) = self.normalize_prefix(input);
            let mut piece = normalized;
            while is_prev_space && piece.starts_with(' ') {
                piece = &piece[1..];
            }
            if !piece.is_empty() {
                for c in piece.chars() {
                    if self.escape_whitespaces && c == ' ' {
                        out.push_str(SPACE_SYMBOL);
                    } else {
                        out.push(c);
                    }
                }
                is_prev_space = piece.ends_with(' ');
            }
            input = &input[consumed..];
            if !self.remove_extra_whitespaces {
                is_prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(space) {
                out.truncate(out.len() - space.len());
            }
        }
        if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.push_str(space);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> SentencePieceNormalizer {
        let spec = NormalizerSpec {
            name: "identity".into(),
            ..NormalizerSpec::default()
        };
        SentencePieceNormalizer::new(&spec, false, &[]).unwrap()
    }

    #[test]
    fn whitespace_rules() {
        let n = identity();
        assert_eq!(n.normalize("  Hello   world "), "▁Hello▁world");
        assert_eq!(n.normalize("   "), "");
        assert_eq!(n.normalize(""), "");
        assert_eq!(n.normalize("a\tb"), "▁a\tb");
    }

    #[test]
    fn user_defined_symbols_are_kept_verbatim() {
        let spec = NormalizerSpec::default();
        let n = SentencePieceNormalizer::new(&spec, false, &["a  b"]).unwrap();
        assert_eq!(n.normalize("a  b  c"), "▁a▁▁b▁c");
    }

    #[test]
    fn suffix_mode_puts_the_space_last() {
        let spec = NormalizerSpec::default();
        let n = SentencePieceNormalizer::new(&spec, true, &[]).unwrap();
        assert_eq!(n.normalize(" a b "), "a▁b▁");
    }
}
