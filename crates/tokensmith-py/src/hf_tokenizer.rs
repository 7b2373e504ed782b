//! `tokensmith._core.CoreHfTokenizer`: the `tokenizer.json` pipeline behind
//! `tokensmith.Tokenizer`. Encoding and decoding release the GIL; the class is frozen.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use tokensmith_core::hf::HfTokenizer;

use crate::errors::IntoPyResult;

#[pyclass(frozen, name = "CoreHfTokenizer", module = "tokensmith._core")]
pub struct CoreHfTokenizer {
    inner: HfTokenizer,
}

/// `(ids, tokens, offsets, type_ids, attention_mask, special_tokens_mask, word_ids)`.
type EncodingTuple = (
    Vec<u32>,
    Vec<String>,
    Vec<(usize, usize)>,
    Vec<u32>,
    Vec<u32>,
    Vec<u32>,
    Vec<Option<u32>>,
);

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
    ) -> EncodingTuple {
        let e = py.detach(|| self.inner.encode(text, pair, add_special_tokens));
        (
            e.ids,
            e.tokens,
            e.offsets,
            e.type_ids,
            e.attention_mask,
            e.special_tokens_mask,
            e.word_ids,
        )
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
