"""HF ``tokenizers``' component modules (models, normalizers, pre_tokenizers, decoders,
processors, trainers), one module each; ``tokensmith.<name>`` re-exports them. The
``pipeline``, ``tokenizer_*`` and ``training`` modules hold the parts of HF's ``Tokenizer``
API built on them, mixed into :class:`~tokensmith.Tokenizer`.

Every component is its ``tokenizer.json`` fragment (see :mod:`._base`): the Rust core loads
the pipeline from that JSON, so a component is described once.
"""
