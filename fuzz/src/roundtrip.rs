//! The properties an [`Encoding`] keeps on every text it accepts.

use tokensmith_core::{Encoding, Error, SpecialPolicy, SpecialSet};

/// Encodes `text` ordinary and with every special allowed, and checks that decoding gives
/// the text back and that `count` agrees with `encode`. A vocabulary without some byte may
/// refuse the text with [`Error::MissingByte`], and a user pattern may hit its step limit;
/// any other error is a bug.
pub fn check(enc: &Encoding, text: &str) {
    let all = SpecialPolicy {
        allowed: SpecialSet::All,
        disallowed: Some(SpecialSet::None),
    };
    for policy in [SpecialPolicy::ordinary(), all] {
        let ids = match enc.encode(text, &policy) {
            Ok(ids) => ids,
            Err(Error::MissingByte(_) | Error::Pattern(_) | Error::Limit { .. }) => continue,
            Err(e) => panic!("encode failed: {e}"),
        };
        let back = enc.decode_bytes(&ids).expect("encoded ids decode");
        assert_eq!(back, text.as_bytes(), "decode(encode(text)) != text");
        let offsets = enc.decode_offsets(&ids).expect("encoded ids have offsets");
        assert_eq!(offsets.len(), ids.len());
        assert_eq!(enc.count(text, &policy).expect("count"), ids.len());
    }
    // The default policy refuses a text holding a special, and encodes any other.
    match enc.encode(text, &SpecialPolicy::default()) {
        Ok(_) | Err(Error::DisallowedSpecial(_) | Error::MissingByte(_) | Error::Pattern(_)) => {}
        Err(Error::Limit { .. }) => {}
        Err(e) => panic!("encode with the default policy failed: {e}"),
    }
}

/// Decodes arbitrary ids: known ids decode, any other is [`Error::UnknownTokenId`].
pub fn check_decode(enc: &Encoding, ids: &[u32]) {
    match enc.decode_bytes(ids) {
        Ok(_) | Err(Error::UnknownTokenId { .. }) => {}
        Err(e) => panic!("decode failed with an unexpected error: {e}"),
    }
}
