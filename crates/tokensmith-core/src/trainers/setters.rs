//! The builder setters every BPE-family trainer shares.
//!
//! `shared_setters!(Type, "unit")` writes `min_frequency`, `special_tokens`,
//! `max_token_length` and `compat` for a trainer struct that has fields of those names;
//! `unit` names what `max_token_length` counts (bytes or characters).

macro_rules! shared_setters {
    ($ty:ty, $unit:literal) => {
        impl $ty {
            /// Pairs seen fewer times than this are never merged (training stops there).
            #[must_use]
            pub fn min_frequency(mut self, n: u64) -> Self {
                self.min_frequency = n;
                self
            }

            /// Special tokens, given the first ids.
            #[must_use]
            pub fn special_tokens<S: Into<String>>(
                mut self,
                tokens: impl IntoIterator<Item = S>,
            ) -> Self {
                self.special_tokens = tokens.into_iter().map(Into::into).collect();
                self
            }

            #[doc = concat!("The longest token, in ", $unit, " (see [`Compat`](crate::trainers::Compat) for HF's exact rule).")]
            #[must_use]
            pub fn max_token_length(mut self, n: Option<usize>) -> Self {
                self.max_token_length = n;
                self
            }

            /// Which library's tie-breaks and length rule to follow.
            #[must_use]
            pub fn compat(mut self, compat: $crate::trainers::Compat) -> Self {
                self.compat = compat;
                self
            }
        }
    };
}

pub(crate) use shared_setters;
