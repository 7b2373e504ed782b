//! `tokensmith._core.CoreHfTokenizer`: the `tokenizer.json` pipeline behind
//! `tokensmith.Tokenizer`. Encoding and decoding release the GIL; the class is frozen.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use tokensmith_core::hf::HfTokenizer;
use tokensmith_core::parallel;

use crate::errors::IntoPyResult;
use crate::hf_encoding::EncodingResult;

#[pyclass(frozen, name = "CoreHfTokenizer", module = "tokensmith._core")]
pub struct CoreHfTokenizer {
    inner: HfTokenizer,
}

#[pymethods]
impl CoreHfTokenizer {
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| HfTokenizer::from_file(&path)).py_err(py)?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_str(py: Python<'_>, json: &str) -> PyResult<Self> {
        let inner = py.detach(|| HfTokenizer::from_json_str(json)).py_err(py)?;
        Ok(Self { inner })
    }

    #[pyo3(signature = (text, pair, add_special_tokens))]
    fn encode(
        &self,
        py: Python<'_>,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> EncodingResult {
        py.detach(|| self.inner.encode(text, pair, add_special_tokens))
            .into()
    }

    /// Encodes every `(text, pair)` on up to `threads` threads, in input order.
    #[pyo3(signature = (inputs, add_special_tokens, threads))]
    fn encode_batch(
        &self,
        py: Python<'_>,
        inputs: Vec<(String, Option<String>)>,
        add_special_tokens: bool,
        threads: usize,
    ) -> Vec<EncodingResult> {
        let encodings = py.detach(|| {
            parallel::map(&inputs, threads, |(text, pair)| {
                self.inner.encode(text, pair.as_deref(), add_special_tokens)
            })
        });
        encodings.into_iter().map(EncodingResult::from).collect()
    }

    /// Decodes every id list on up to `threads` threads, in input order.
    #[pyo3(signature = (sequences, skip_special_tokens, threads))]
    fn decode_batch(
        &self,
        py: Python<'_>,
        sequences: Vec<Vec<u32>>,
        skip_special_tokens: bool,
        threads: usize,
    ) -> Vec<String> {
        py.detach(|| {
            parallel::map(&sequences, threads, |ids| {
                self.inner.decode(ids, skip_special_tokens)
            })
        })
    }

    fn decode(&self, py: Python<'_>, ids: Vec<u32>, skip_special_tokens: bool) -> String {
        py.detach(|| self.inner.decode(&ids, skip_special_tokens))
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id).map(String::from)
    }

    fn get_vocab<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (token, id) in self.inner.get_vocab() {
            dict.set_item(token, id)?;
        }
        Ok(dict)
    }
}
