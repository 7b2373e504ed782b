//! `tokensmith._core.CoreEncoding`: the byte-level BPE engine behind `tokensmith.Encoding`.
//!
//! Every method that touches text or ids in bulk releases the GIL, and the class is frozen,
//! so many Python threads can encode with one object at once.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;
use tokensmith_core::formats::tiktoken_file;
use tokensmith_core::{parallel, Encoding, SpecialPolicy};

use crate::convert::{ids, policy};
use crate::errors::IntoPyResult;
use crate::id_buffer::{pooled_ids, return_ids, with_ids};
use crate::int_cache::IntCache;
use crate::numpy_array::{u32_array, vec_array};
use crate::signal_slices;
use crate::text_arg::Text;

#[pyclass(frozen, name = "CoreEncoding", module = "tokensmith._core")]
pub struct CoreEncoding {
    inner: Arc<Encoding>,
    /// The Python ints of the ids, one per id below n_vocab.
    ints: IntCache,
}

fn build(
    py: Python<'_>,
    ranks: Vec<(Vec<u8>, u32)>,
    special_tokens: Vec<(String, u32)>,
    pattern: String,
) -> PyResult<CoreEncoding> {
    let inner = py
        .detach(move || Encoding::new(ranks, special_tokens, &pattern))
        .py_err(py)?;
    let ints = IntCache::new(inner.n_vocab());
    Ok(CoreEncoding {
        inner: Arc::new(inner),
        ints,
    })
}

#[pymethods]
impl CoreEncoding {
    /// Builds from a dict of `bytes -> rank`.
    #[staticmethod]
    fn from_ranks(
        py: Python<'_>,
        ranks: Vec<(Vec<u8>, u32)>,
        special_tokens: Vec<(String, u32)>,
        pattern: String,
    ) -> PyResult<Self> {
        build(py, ranks, special_tokens, pattern)
    }

    /// Builds from a `.tiktoken` file (plain or gzipped) without going through Python objects.
    #[staticmethod]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        special_tokens: Vec<(String, u32)>,
        pattern: String,
    ) -> PyResult<Self> {
        let ranks = py.detach(|| tiktoken_file::read(&path)).py_err(py)?;
        build(py, ranks, special_tokens, pattern)
    }

    fn encode_ordinary<'py>(&self, py: Python<'py>, text: Text) -> PyResult<Bound<'py, PyList>> {
        with_ids(|ids| {
            py.detach(|| self.inner.encode_ordinary_into(&text, ids))
                .py_err(py)?;
            self.list(py, ids)
        })
    }

    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: Text,
        allowed_special: &Bound<'py, PyAny>,
        disallowed_special: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let policy = policy(&self.inner, allowed_special, disallowed_special)?;
        with_ids(|ids| {
            py.detach(|| self.inner.encode_into(&text, &policy, ids))
                .py_err(py)?;
            self.list(py, ids)
        })
    }

    /// Ids as a new `numpy.uint32` array.
    fn encode_to_numpy<'py>(
        &self,
        py: Python<'py>,
        text: Text,
        allowed_special: &Bound<'py, PyAny>,
        disallowed_special: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let policy = policy(&self.inner, allowed_special, disallowed_special)?;
        with_ids(|ids| {
            py.detach(|| self.inner.encode_into(&text, &policy, ids))
                .py_err(py)?;
            u32_array(py, ids)
        })
    }

    fn count(
        &self,
        py: Python<'_>,
        text: Text,
        allowed_special: &Bound<'_, PyAny>,
        disallowed_special: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let policy = policy(&self.inner, allowed_special, disallowed_special)?;
        py.detach(|| self.inner.count(&text, &policy)).py_err(py)
    }

    fn encode_ordinary_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let ordinary = SpecialPolicy::ordinary();
        self.batch_lists(py, &texts, num_threads, &ordinary)
    }

    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        num_threads: usize,
        allowed_special: &Bound<'py, PyAny>,
        disallowed_special: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let policy = policy(&self.inner, allowed_special, disallowed_special)?;
        self.batch_lists(py, &texts, num_threads, &policy)
    }

    /// All ids of a batch in one flat `numpy.uint32` array, and len(texts) + 1 `numpy.uint64`
    /// offsets into it.
    fn encode_batch_to_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        num_threads: usize,
        allowed_special: &Bound<'py, PyAny>,
        disallowed_special: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let policy = policy(&self.inner, allowed_special, disallowed_special)?;
        let enc = &self.inner;
        // Each thread appends the ids of a whole range of texts to one growing buffer, and
        // the arrays take over the joined buffers: only the runs after the first are copied.
        // Slice by slice, so that Ctrl-C (a pending signal) stops the batch within one slice.
        let mut all = parallel::Concat::default();
        for range in signal_slices::slices(&texts, signal_slices::SLICE_BYTES) {
            py.check_signals()?;
            let part = py
                .detach(|| {
                    parallel::map_concat(&texts[range], num_threads, |t, out| {
                        // About 4 bytes of text per id: one growth of the buffer per text.
                        out.reserve(t.len() / 3 + 1);
                        enc.encode_into(t, &policy, out)
                    })
                })
                .py_err(py)?;
            all.append(part);
        }
        let (flat, offsets) = py.detach(|| {
            let offsets: Vec<u64> = all.offsets().map(|o| o as u64).collect();
            (all.into_vec(), offsets)
        });
        Ok((vec_array(py, flat)?, vec_array(py, offsets)?))
    }

    fn decode_bytes<'py>(
        &self,
        py: Python<'py>,
        tokens: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let ids = ids(py, &self.inner, tokens)?;
        let bytes = py.detach(|| self.inner.decode_bytes(&ids)).py_err(py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn decode_offsets(&self, py: Python<'_>, tokens: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let ids = ids(py, &self.inner, tokens)?;
        self.inner.decode_offsets(&ids).py_err(py)
    }

    fn token_bytes<'py>(&self, py: Python<'py>, token: i64) -> PyResult<Bound<'py, PyBytes>> {
        let id = u32::try_from(token)
            .map_err(|_| crate::errors::to_py(py, self.inner.unknown_id(token)))?;
        let bytes = self.inner.token_bytes(id).py_err(py)?;
        Ok(PyBytes::new(py, bytes))
    }

    fn tokens_bytes<'py>(
        &self,
        py: Python<'py>,
        tokens: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let ids = ids(py, &self.inner, tokens)?;
        ids.iter()
            .map(|&id| Ok(PyBytes::new(py, self.inner.token_bytes(id).py_err(py)?)))
            .collect()
    }

    fn single_token(&self, bytes: &[u8]) -> Option<u32> {
        self.inner.single_token(bytes)
    }

    fn sorted_token_bytes<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyBytes>> {
        self.inner
            .sorted_token_bytes()
            .into_iter()
            .map(|b| PyBytes::new(py, b))
            .collect()
    }

    fn mergeable_ranks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let mut pairs: Vec<(&[u8], u32)> = self.inner.bpe().iter().collect();
        pairs.sort_unstable_by_key(|&(_, r)| r);
        for (bytes, rank) in pairs {
            dict.set_item(PyBytes::new(py, bytes), rank)?;
        }
        Ok(dict)
    }

    fn special_tokens(&self) -> Vec<(String, u32)> {
        self.inner
            .specials()
            .iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect()
    }

    #[getter]
    fn n_vocab(&self) -> usize {
        self.inner.n_vocab()
    }

    #[getter]
    fn n_mergeable(&self) -> usize {
        self.inner.bpe().len()
    }

    #[getter]
    fn pattern(&self) -> &str {
        self.inner.pattern()
    }

    /// The pieces the pre-tokenizer cuts `text` into (for inspection and tests).
    fn pre_tokenize(&self, py: Python<'_>, text: &str) -> PyResult<Vec<String>> {
        let pieces = self.inner.pre_tokenizer().pieces(text).py_err(py)?;
        Ok(pieces.into_iter().map(str::to_string).collect())
    }
}

impl CoreEncoding {
    /// The core encoding, for other bindings (training on top of it).
    pub(crate) fn encoding(&self) -> &Encoding {
        &self.inner
    }

    /// A Python list of ids, built from the cached int objects.
    fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        self.ints.list(py, ids)
    }

    /// Encodes on `num_threads` threads, this one among them: between encoding texts itself,
    /// this thread builds the Python lists of the texts the others finished, so the serial
    /// list building overlaps the parallel encoding.
    ///
    /// This thread takes texts one at a time, the others up to a few at a time, single ones
    /// again toward the end ([`parallel::map_streamed_texts`]). With shares of the batch for
    /// every thread, this one began with a quarter of the batch before building any list, and
    /// was left at the end with the lists of every range the others finished meanwhile, with
    /// no encoding left to overlap them (on 4 KB texts, 2 threads ran 1.3-1.7x one).
    ///
    /// The longest texts go first, so that the last texts handed out, which one thread may
    /// finish while the other waits, are the shortest. The id buffers go round: once its list
    /// is built, a buffer is handed back for the next text, so a batch allocates a few
    /// buffers instead of one (and its growth) per text; they come from, and go back to, a
    /// small pool kept between batches ([`crate::id_buffer`]).
    fn batch_lists<'py>(
        &self,
        py: Python<'py>,
        texts: &[PyBackedStr],
        num_threads: usize,
        policy: &SpecialPolicy,
    ) -> PyResult<Bound<'py, PyList>> {
        let enc = &self.inner;
        if parallel::effective_threads(num_threads) == 1 || texts.len() < 2 {
            // Ctrl-C is seen between texts (a pending signal raises KeyboardInterrupt).
            let lists = texts
                .iter()
                .map(|t| {
                    py.check_signals()?;
                    with_ids(|ids| {
                        py.detach(|| enc.encode_into(t, policy, ids)).py_err(py)?;
                        Ok(self.list(py, ids)?.into_any())
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            return PyList::new(py, lists);
        }
        let out = PyList::new(py, (0..texts.len()).map(|_| py.None()))?;
        // Slice by slice, so that Ctrl-C (a pending signal) stops the batch within one slice.
        for range in signal_slices::slices(texts, signal_slices::SLICE_BYTES) {
            py.check_signals()?;
            let offset = range.start;
            let slice = &texts[range];
            let order = longest_first(slice);
            // The failure of the first failing text in input order, whichever thread
            // finished first: the same batch always raises the same error.
            let mut failure: Option<(usize, PyErr)> = None;
            parallel::map_streamed_texts(
                &order,
                num_threads,
                |&i| {
                    let mut ids = pooled_ids();
                    // About 4 bytes of text per id: one growth of the buffer per text.
                    ids.reserve(slice[i].len() / 3 + 1);
                    enc.encode_into(&slice[i], policy, &mut ids).map(|()| ids)
                },
                |results| {
                    // The GIL is released only to encode a text or to wait for one; results
                    // that are ready are listed at once.
                    while let Some((start, chunk)) = results
                        .ready_chunk()
                        .or_else(|| py.detach(|| results.next_chunk()))
                    {
                        for (&i, r) in order[start..].iter().zip(chunk) {
                            if failure.as_ref().is_some_and(|&(f, _)| f < i) {
                                continue;
                            }
                            let item = r.py_err(py).and_then(|ids| {
                                let list = self.list(py, &ids);
                                return_ids(ids);
                                list
                            });
                            if let Err(e) = item.and_then(|list| out.set_item(offset + i, list)) {
                                failure = Some((i, e));
                            }
                        }
                    }
                },
            );
            if let Some((_, e)) = failure {
                return Err(e);
            }
        }
        Ok(out)
    }
}

/// The indices of `texts`, longest first by powers of two (input order within each): a
/// counting sort, linear in the number of texts where a comparison sort of a million short
/// texts would take a noticeable share of encoding them.
///
/// `["ab", "abcde", "", "xyz", "abcd"]` gives `[1, 4, 0, 3, 2]`: lengths 5 and 4 share the
/// bucket 4..8, then 3 and 2 share 2..4.
fn longest_first<S: AsRef<str>>(texts: &[S]) -> Vec<usize> {
    let bucket = |t: &S| (usize::BITS - t.as_ref().len().leading_zeros()) as usize;
    let mut starts = [0usize; usize::BITS as usize + 2];
    for t in texts {
        starts[usize::BITS as usize - bucket(t) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut order = vec![0; texts.len()];
    for (i, t) in texts.iter().enumerate() {
        let slot = &mut starts[usize::BITS as usize - bucket(t)];
        order[*slot] = i;
        *slot += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::longest_first;

    #[test]
    fn longest_first_orders_by_powers_of_two_keeping_input_order() {
        assert_eq!(
            longest_first(&["ab", "abcde", "", "xyz", "abcd"]),
            [1, 4, 0, 3, 2]
        );
        assert_eq!(longest_first::<&str>(&[]), Vec::<usize>::new());
        assert_eq!(longest_first(&["a"; 4]), [0, 1, 2, 3]);
    }
}
