//! Ids of short inputs are encoded into a buffer the thread keeps and copied out: each call's
//! ids are exact, owned by the caller, and hold no spare room; long inputs skip the buffer.

use super::fast_ids::SCRATCH_BYTES;
use super::fast_ids_lazy_tests::byte_level_json;
use super::tokenizer::HfTokenizer;

#[test]
fn ids_stay_exact_and_owned_as_the_buffer_is_reused() {
    let (tok, _) = HfTokenizer::from_json_str_outlined(&byte_level_json()).unwrap();
    let long = "ab xab \u{e9}".repeat(3000); // 27,000 bytes: past the buffer's bound
    let medium = "ab ba ".repeat(1000);
    assert!(long.len() > SCRATCH_BYTES && medium.len() <= SCRATCH_BYTES);
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
        if text.len() <= SCRATCH_BYTES {
            assert_eq!(
                ids.capacity(),
                ids.len(),
                "spare room kept for {:.20?}",
                text
            );
        }
    }
    let pair = tok
        .encode_ids("ab b", Some("ba ab"), false)
        .unwrap()
        .unwrap();
    assert_eq!(pair, tok.encode("ab b", Some("ba ab"), false).unwrap().ids);
}
