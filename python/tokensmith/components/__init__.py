"""HF ``tokenizers``' component modules (models, normalizers, pre_tokenizers, decoders,
processors, trainers), one module each; ``tokensmith.<name>`` re-exports them.

Every component is its ``tokenizer.json`` fragment (see :mod:`._base`): the Rust core loads
the pipeline from that JSON, so a component is described once.
"""
