"""Converting tokenizers between formats, with verification; see :func:`convert`."""
