//! Special tokens: strings such as `<|endoftext|>` that map to one id and are never split.
//!
//! Matching uses one Aho-Corasick automaton, leftmost-longest. Which specials may appear in a
//! text, and which are errors, is decided by a [`SpecialPolicy`], in one place for every
//! encode call (tiktoken's `allowed_special` / `disallowed_special`).

use crate::error::{Error, Result};
use crate::limits::{self, Limit};
use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use rustc_hash::FxHashMap;

/// A set of special tokens, by index into [`SpecialTokens::names`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecialSet {
    None,
    All,
    Some(Vec<bool>),
}

impl SpecialSet {
    #[inline]
    fn contains(&self, index: usize) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Some(mask) => mask.get(index).copied().unwrap_or(false),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Self::None => true,
            Self::All => false,
            Self::Some(mask) => !mask.iter().any(|&b| b),
        }
    }
}

/// What an encode call does with special-token text.
///
/// The default matches tiktoken's `encode`: nothing allowed, everything else disallowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialPolicy {
    /// Specials encoded as their own id.
    pub allowed: SpecialSet,
    /// Specials whose presence in the text is an error. `None` in the struct means
    /// "every special that is not allowed".
    pub disallowed: Option<SpecialSet>,
}

impl SpecialPolicy {
    /// Encode every special as ordinary text and raise on none (`encode_ordinary`).
    pub fn ordinary() -> Self {
        Self {
            allowed: SpecialSet::None,
            disallowed: Some(SpecialSet::None),
        }
    }
}

impl Default for SpecialPolicy {
    fn default() -> Self {
        Self {
            allowed: SpecialSet::None,
            disallowed: None,
        }
    }
}

/// The special tokens of an encoding.
#[derive(Debug, Clone)]
pub struct SpecialTokens {
    names: Vec<String>,
    ids: Vec<u32>,
    by_name: FxHashMap<String, usize>,
    by_id: FxHashMap<u32, usize>,
    matcher: Option<AhoCorasick>,
}

/// One special token found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialMatch {
    pub start: usize,
    pub end: usize,
    pub index: usize,
}

/// Patterns up to this many bytes in all get Aho-Corasick's DFA (fastest to search); longer
/// sets get its contiguous NFA, whose build is linear where the DFA's is quadratic in a long
/// repetitive pattern (one `"a" * 100_000` token took 40 s).
const DFA_MAX_BYTES: usize = 1 << 12;

/// A leftmost-longest matcher of `patterns` (special or added tokens), built in time linear
/// in their total length.
pub(crate) fn token_matcher<P: AsRef<[u8]>>(
    patterns: &[P],
) -> std::result::Result<AhoCorasick, aho_corasick::BuildError> {
    let total: usize = patterns.iter().map(|p| p.as_ref().len()).sum();
    let longest = patterns.iter().map(|p| p.as_ref().len()).max().unwrap_or(0);
    let mut builder = AhoCorasick::builder();
    builder.match_kind(MatchKind::LeftmostLongest);
    if longest > DFA_MAX_BYTES || total > (1 << 20) {
        builder.kind(Some(AhoCorasickKind::ContiguousNFA));
    }
    builder.build(patterns)
}

impl SpecialTokens {
    /// Builds the set; names must be unique and non-empty.
    ///
    /// Two names may share an id, as `<|endofprompt|>` and `<|reserved_200018|>` do in
    /// tiktoken's o200k_harmony: both encode to it, and it decodes to the name given first.
    pub fn new(tokens: Vec<(String, u32)>) -> Result<Self> {
        let mut by_name = FxHashMap::default();
        let mut by_id = FxHashMap::default();
        let (mut names, mut ids) = (Vec::new(), Vec::new());
        for (name, id) in tokens {
            limits::check(Limit::MaxTokenId, id.into(), "a special token's id")?;
            limits::check(
                Limit::MaxTokenBytes,
                name.len() as u64,
                "a special token's length in bytes",
            )?;
            if name.is_empty() {
                return Err(Error::InvalidVocab(
                    "a special token is the empty string".into(),
                ));
            }
            if by_name.insert(name.clone(), names.len()).is_some() {
                return Err(Error::InvalidVocab(format!(
                    "special token {name:?} appears twice"
                )));
            }
            by_id.entry(id).or_insert(names.len());
            names.push(name);
            ids.push(id);
        }
        let matcher = if names.is_empty() {
            None
        } else {
            Some(
                token_matcher(&names)
                    .map_err(|e| Error::InvalidVocab(format!("special tokens: {e}")))?,
            )
        };
        Ok(Self {
            names,
            ids,
            by_name,
            by_id,
            matcher,
        })
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// `(name, id)` pairs in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.names
            .iter()
            .map(String::as_str)
            .zip(self.ids.iter().copied())
    }

    /// The id of the special at `index` in [`names`](Self::names).
    pub fn id_at(&self, index: usize) -> u32 {
        self.ids[index]
    }

    pub fn id_of(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).map(|&i| self.ids[i])
    }

    pub fn name_of(&self, id: u32) -> Option<&str> {
        self.by_id.get(&id).map(|&i| self.names[i].as_str())
    }

    pub fn max_id(&self) -> Option<u32> {
        self.ids.iter().copied().max()
    }

    /// A set from names; names that are not special tokens are ignored, as in tiktoken.
    pub fn set_of<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> SpecialSet {
        let mut mask = vec![false; self.names.len()];
        for name in names {
            if let Some(&i) = self.by_name.get(name) {
                mask[i] = true;
            }
        }
        SpecialSet::Some(mask)
    }

    /// The first special of `set` that occurs in `text` (leftmost, then longest).
    pub fn find_in(&self, text: &str, set: &SpecialSet) -> Option<SpecialMatch> {
        if set.is_empty() {
            return None;
        }
        self.find_from(text, 0, set)
    }

    /// The leftmost-longest match starting at or after `from` whose token is in `set`.
    ///
    /// A match of a token outside `set` is skipped by resuming one byte after its start, so a
    /// token in `set` that overlaps it is still found.
    pub fn find_from(&self, text: &str, mut from: usize, set: &SpecialSet) -> Option<SpecialMatch> {
        let matcher = self.matcher.as_ref()?;
        if set.is_empty() {
            return None;
        }
        while from < text.len() {
            let m = matcher.find(Input::new(text).span(from..text.len()))?;
            let index = m.pattern().as_usize();
            if set.contains(index) {
                return Some(SpecialMatch {
                    start: m.start(),
                    end: m.end(),
                    index,
                });
            }
            from = m.start() + 1;
        }
        None
    }

    /// Checks `text` against the policy; the error names the first disallowed token found.
    pub fn check(&self, text: &str, policy: &SpecialPolicy) -> Result<()> {
        let complement;
        let disallowed = match &policy.disallowed {
            Some(set) => set,
            None => {
                complement = self.complement(&policy.allowed);
                &complement
            }
        };
        match self.find_in(text, disallowed) {
            Some(m) => Err(Error::DisallowedSpecial(self.names[m.index].clone())),
            None => Ok(()),
        }
    }

    fn complement(&self, set: &SpecialSet) -> SpecialSet {
        match set {
            SpecialSet::None => SpecialSet::All,
            SpecialSet::All => SpecialSet::None,
            SpecialSet::Some(mask) => SpecialSet::Some(mask.iter().map(|b| !b).collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specials() -> SpecialTokens {
        SpecialTokens::new(vec![("<|a|>".into(), 10), ("<|ab|>".into(), 11)]).unwrap()
    }

    #[test]
    fn finds_allowed_only() {
        let s = specials();
        let only_ab = s.set_of(["<|ab|>"]);
        let m = s.find_from("x<|a|>y<|ab|>", 0, &only_ab).unwrap();
        assert_eq!(
            (m.start, m.end, s.names()[m.index].as_str()),
            (7, 13, "<|ab|>")
        );
        assert_eq!(s.find_from("x<|a|>y", 0, &only_ab), None);
    }

    #[test]
    fn default_policy_rejects_any_special() {
        let s = specials();
        let err = s.check("hi <|a|>", &SpecialPolicy::default()).unwrap_err();
        assert!(matches!(err, Error::DisallowedSpecial(ref t) if t == "<|a|>"));
        let allow_a = SpecialPolicy {
            allowed: s.set_of(["<|a|>"]),
            disallowed: None,
        };
        assert!(s.check("hi <|a|>", &allow_a).is_ok());
        assert!(s.check("hi <|ab|>", &allow_a).is_err());
        assert!(s.check("hi <|ab|>", &SpecialPolicy::ordinary()).is_ok());
    }

    #[test]
    fn duplicate_names_are_rejected() {
        assert!(SpecialTokens::new(vec![("<a>".into(), 1), ("<a>".into(), 2)]).is_err());
        assert!(SpecialTokens::new(vec![(String::new(), 1)]).is_err());
    }

    #[test]
    fn two_names_may_share_an_id_and_it_decodes_to_the_first() {
        let s = SpecialTokens::new(vec![("<a>".into(), 1), ("<b>".into(), 1)]).unwrap();
        assert_eq!((s.id_of("<a>"), s.id_of("<b>")), (Some(1), Some(1)));
        assert_eq!(s.name_of(1), Some("<a>"));
        let m = s.find_in("x<b>", &SpecialSet::All).unwrap();
        assert_eq!(s.id_at(m.index), 1);
    }
}
