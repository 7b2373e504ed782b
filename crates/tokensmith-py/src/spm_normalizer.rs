//! The compiled half of `tokensmith.SentencePieceNormalizer`: a normalizer spec turned into a
//! `CoreSentencePiece` that only normalizes, and the charsmap of a rule name or a map.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use tokensmith_core::error::Error;
use tokensmith_core::formats::sentencepiece_model::{
    self, ModelProto, Piece, PieceType, TrainerSpec,
};
use tokensmith_core::normalizers::charsmap_builder::{
    compile, decompile, precompiled_charsmap, CharsMap, Rule,
};
use tokensmith_core::sentencepiece::SentencePieceProcessor;

use crate::errors::{new_error, to_py};
use crate::sentencepiece::CoreSentencePiece;

/// From the bytes of a model (a whole `.model`, or one holding only a normalizer spec), with
/// the given flags overriding the spec's: the processor that normalizes as that spec does
/// (the model's pieces, user-defined symbols and trainer options left out, as sentencepiece's
/// normalizer leaves them), and the bytes of the model with that spec alone.
#[pyfunction]
pub fn spm_normalizer<'py>(
    py: Python<'py>,
    model: PyBackedBytes,
    add_dummy_prefix: Option<bool>,
    escape_whitespaces: Option<bool>,
    remove_extra_whitespaces: Option<bool>,
) -> PyResult<(CoreSentencePiece, Bound<'py, PyBytes>)> {
    let build = || {
        let loaded = sentencepiece_model::parse(&model)?;
        let mut only = loaded.normalizer_only();
        let spec = &mut only.normalizer_spec;
        if let Some(v) = add_dummy_prefix {
            spec.add_dummy_prefix = v;
        }
        if let Some(v) = escape_whitespaces {
            spec.escape_whitespaces = v;
        }
        if let Some(v) = remove_extra_whitespaces {
            spec.remove_extra_whitespaces = v;
        }
        let runner = ModelProto {
            pieces: vec![Piece {
                piece: "<unk>".into(),
                score: 0.0,
                kind: PieceType::Unknown,
            }],
            // sentencepiece's normalizer puts the space mark in front even for a model with
            // treat_whitespace_as_suffix: it reads the normalizer spec only.
            trainer_spec: TrainerSpec::default(),
            normalizer_spec: only.normalizer_spec.clone(),
            ..ModelProto::default()
        };
        let processor = SentencePieceProcessor::from_proto(runner)?;
        Ok::<_, Error>((processor, sentencepiece_model::serialize(&only)))
    };
    let (processor, bytes) = py.detach(build).map_err(|e| to_py(py, e))?;
    Ok((
        CoreSentencePiece::from_processor(processor),
        PyBytes::new(py, &bytes),
    ))
}

/// The precompiled charsmap of sentencepiece's rule `name` (empty for `identity`).
#[pyfunction]
pub fn spm_rule_charsmap<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
    if name == "identity" {
        return Ok(PyBytes::new(py, b""));
    }
    let Some(rule) = Rule::ALL.into_iter().find(|r| r.name() == name) else {
        let known: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        return Err(new_error(
            py,
            "SentencePieceOptionError",
            format!(
                "rule_name={name:?} is not a normalization rule; use identity or one of {}",
                known.join(", ")
            ),
        ));
    };
    let blob = py
        .detach(|| precompiled_charsmap(rule))
        .map_err(|e| to_py(py, e))?;
    Ok(PyBytes::new(py, blob))
}

/// The precompiled charsmap of `(source, replacement)` pairs.
#[pyfunction]
pub fn spm_compile_charsmap<'py>(
    py: Python<'py>,
    pairs: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let build = || {
        let mut map = CharsMap::new();
        for (source, target) in pairs {
            if source.is_empty() {
                return Err(Error::InvalidOption(
                    "a normalization rule's source is empty".into(),
                ));
            }
            map.insert(source.chars().collect(), target.chars().collect());
        }
        compile(&map)
    };
    let blob = py.detach(build).map_err(|e| to_py(py, e))?;
    Ok(PyBytes::new(py, &blob))
}

/// The `(source, replacement)` rules a precompiled charsmap holds, sorted by source.
#[pyfunction]
pub fn spm_decompile_charsmap(
    py: Python<'_>,
    blob: PyBackedBytes,
) -> PyResult<Vec<(String, String)>> {
    let map = py.detach(|| decompile(&blob)).map_err(|e| to_py(py, e))?;
    Ok(map
        .into_iter()
        .map(|(k, v)| (k.into_iter().collect(), v.into_iter().collect()))
        .collect())
}
