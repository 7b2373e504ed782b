"""Converting tokenizers between formats, verified; see :func:`convert`."""

from tokensmith.conversion.convert import ConversionReport, convert
from tokensmith.conversion.verify import VerifyReport, verify_pair

__all__ = ["ConversionReport", "VerifyReport", "convert", "verify_pair"]
