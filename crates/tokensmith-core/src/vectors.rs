//! Which vector instructions a vectorized path may use: the baseline set of the target, or
//! AVX2 on x86-64 CPUs that have it. Code with an AVX2 path takes a [`Vectors`] and runs it
//! only where [`Vectors::avx2`] says so; tests run both paths with
//! `[Vectors::BASELINE, Vectors::detect()]`.

/// The vector instructions a path may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vectors {
    avx2: bool,
}

impl Vectors {
    /// The instructions every CPU of the target has (SSE2 on x86-64).
    pub const BASELINE: Self = Self { avx2: false };

    /// AVX2, where this CPU has it.
    pub fn detect() -> Self {
        Self {
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            avx2: false,
        }
    }

    /// Whether AVX2 is allowed.
    #[inline(always)]
    pub fn avx2(self) -> bool {
        self.avx2
    }

    /// AVX2, without looking at the CPU.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    pub const unsafe fn avx2_unchecked() -> Self {
        Self { avx2: true }
    }
}
