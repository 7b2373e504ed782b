//! The block splitters of the known patterns ([`super::tile_blocks`] with each pattern's
//! rules), built twice on x86-64: for the baseline instruction set, and for CPUs with AVX2
//! and BMI (x86-64-v3), where the same code takes three-operand vector instructions and
//! single instructions for its bit tricks (`andn`, `blsr`, `shlx`, `lzcnt`), and computes
//! a block's class masks 32 bytes at a time ([`crate::vectors::Vectors`]). The build is
//! picked at run time, once per text; both cut the same pieces (`tests/splitters.rs` checks
//! the build this CPU runs against the baseline build, the scalar path and the regex).
//! Other architectures take the baseline build.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::tiled;
//! let mut pieces = Vec::new();
//! tiled::r50k("Hello world's 42", |s, e| pieces.push((s, e)));
//! assert_eq!(pieces, [(0, 5), (5, 11), (11, 13), (13, 16)]);
//! ```

use super::block_starts::Rules;
use super::pieces::PieceSink;
use super::{cl100k, o200k, r50k, tile_blocks};
use crate::vectors::Vectors;

/// For each pattern `name: rules, piece_end;`, the function `name` (the build this CPU
/// runs), `baseline::name` and, on x86-64, `v3::name`.
macro_rules! splitters {
    ($($name:ident: $rules:expr, $piece_end:path;)*) => {
        /// The builds for the baseline instruction set.
        pub mod baseline {
            use super::*;
            $(
                /// Calls `f` with each piece's byte range, in order.
                #[inline(always)]
                pub fn $name(text: &str, f: impl PieceSink) {
                    tile_blocks(text, $rules, $piece_end, Vectors::BASELINE, f)
                }
            )*
        }

        /// The builds for x86-64-v3 ([`has_v3`]).
        #[cfg(target_arch = "x86_64")]
        mod v3 {
            use super::*;
            $(
                #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
                pub fn $name(text: &str, f: impl PieceSink) {
                    // SAFETY: this build runs only where the CPU has AVX2 (see `has_v3`).
                    let vectors = unsafe { Vectors::avx2_unchecked() };
                    tile_blocks(text, $rules, $piece_end, vectors, f)
                }
            )*
        }

        $(
            /// Calls `f` with each piece's byte range, in order, in the build this CPU
            /// runs best.
            #[inline(always)]
            pub fn $name(text: &str, f: impl PieceSink) {
                #[cfg(target_arch = "x86_64")]
                if has_v3() {
                    // SAFETY: the CPU has every feature the v3 build was compiled for.
                    return unsafe { v3::$name(text, f) };
                }
                baseline::$name(text, f)
            }
        )*
    };
}

splitters! {
    r50k: Rules::R50K, r50k::piece_end;
    cl100k: Rules::CL100K, cl100k::piece_end;
    o200k: Rules::O200K, o200k::piece_end;
    llama3: Rules::CL100K, cl100k::llama3_piece_end;
    qwen2: Rules::QWEN2, cl100k::qwen2_piece_end;
}

/// Whether this CPU runs the v3 builds (std caches the detection: a load and a test each).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn has_v3() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}
