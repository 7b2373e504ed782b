//! Sums of probabilities kept as logarithms.
//!
//! ```
//! use tokensmith_core::log_space::log_sum_exp;
//! assert!((log_sum_exp(0.5f64.ln(), 0.25f64.ln()) - 0.75f64.ln()).abs() < 1e-15);
//! // A term more than 50 below the other is dropped.
//! assert_eq!(log_sum_exp(0.0, -60.0), 0.0);
//! ```

/// `log(exp(x) + exp(y))` as sentencepiece and HF compute it in `f64`: the smaller term is
/// dropped when it is more than 50 below the larger, else `max + ln(exp(min - max) + 1)`.
/// Both trainers and samplers round exactly this way, so results match theirs bit for bit.
pub fn log_sum_exp(x: f64, y: f64) -> f64 {
    let (vmin, vmax) = if x > y { (y, x) } else { (x, y) };
    if vmax > vmin + 50.0 {
        vmax
    } else {
        vmax + ((vmin - vmax).exp() + 1.0).ln()
    }
}

/// The [`log_sum_exp`] of `terms`, added left to right (the order fixes the rounding, as in
/// the libraries matched); `None` when there are none.
pub fn log_sum(terms: impl IntoIterator<Item = f64>) -> Option<f64> {
    terms.into_iter().reduce(log_sum_exp)
}
