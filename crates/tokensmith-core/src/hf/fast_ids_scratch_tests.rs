//! Ids are encoded into a buffer the thread keeps and copied out: each call's ids are exact,
//! owned by the caller, and hold no spare room, whatever the length of the calls before.

use super::fast_ids_lazy_tests::byte_level_json;
use super::tokenizer::HfTokenizer;
use crate::scratch::KEEP_BYTES;

#[test]
fn ids_stay_exact_and_owned_as_the_buffer_is_reused() {
    let (tok, _) = HfTokenizer::from_json_str_outlined(&byte_level_json()).unwrap();
    // More ids than a kept buffer may hold between calls (so it is freed after the call).
    let long = "ab xab \u{e9}".repeat(KEEP_BYTES / 4 / 3 + 1);
    let medium = "ab ba ".repeat(1000);
    let texts = [
        "abab",
        long.as_str(),
        "b",
        "",
        medium.as_str(),
        "a b",
        long.as_str(),
        "ab",
    ];
    let want: Vec<Vec<u32>> = texts
        .iter()
        .map(|t| tok.encode(t, None, false).unwrap().ids)
        .collect();
    let got: Vec<Vec<u32>> = texts
        .iter()
        .map(|t| tok.encode_ids(t, None, false).unwrap().unwrap())
        .collect();
    // Later calls leave the ids of earlier ones as they were.
    assert_eq!(got, want);
    for (text, ids) in texts.iter().zip(&got) {
        assert_eq!(
            ids.capacity(),
            ids.len(),
            "spare room kept for {:.20?}",
            text
        );
    }
    let pair = tok
        .encode_ids("ab b", Some("ba ab"), false)
        .unwrap()
        .unwrap();
    assert_eq!(pair, tok.encode("ab b", Some("ba ab"), false).unwrap().ids);
}
