"""The built-in probe set: short texts on which two tokenizers that claim to be the same must
give the same ids.

The probes cover what format converters get wrong: scripts without spaces, code, every kind
of whitespace (runs, tabs, CR/LF, NBSP, ideographic and zero-width spaces), numbers of every
length, emoji with joiners and modifiers, the special-token strings of the tokenizer under
test (alone, glued to text, and half-written), and the edges of each family: leading spaces
for SentencePiece (``▁``), ``##`` and accents for WordPiece, lone bytes for byte fallback,
and contractions for the tiktoken patterns.

>>> texts = probe_texts(["<|endoftext|>"])
>>> "<|endoftext|>" in texts and "" in texts
True
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["probe_texts"]

_MULTILINGUAL = [
    "The quick brown fox jumps over the lazy dog.",
    "Ünïcödé façade naïve café résumé Øresund Æsir ß ẞ",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
    "我能吞下玻璃而不伤身体。東京都は日本の首都です。",
    "私はガラスを食べられます。それは私を傷つけません。",
    "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요",
    "أنا قادر على أكل الزجاج و هذا لا يؤلمني.",
    "אני יכול לאכול זכוכית וזה לא מזיק לי.",
    "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.",
    "ฉันกินกระจกได้ แต่มันไม่ทำให้ฉันเจ็บ",
    "Tôi có thể ăn thủy tinh mà không hại gì.",
    "ᚠᛇᚻ᛫ᛒᛦᚦ᛫ᚠᚱᚩᚠᚢᚱ᛫ᚠᛁᚱᚪ᛫ᚷᛖᚻᚹᛦᛚᚳᚢᛗ",
    "e\u0301 vs é, ﬁ ligature, ＡＢＣ fullwidth, Ⅻ, ①, x²",
]

_CODE = [
    "def f(x: int) -> int:\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }",
    "const url = `https://example.com/a?b=1&c=${d}`;",
    '{"key": [1, 2.5, -3e10, null, true], "k2": "v\\"q"}',
    '<div class="x">&amp; &lt;tag&gt;</div>',
    "SELECT * FROM t WHERE a >= 10 AND b <> 'x';",
    "    if x:\n\t\ty = {'a': 1}\n",
    'fn main() { println!("{:?}", vec![1u8; 4]); }',
]

_WHITESPACE = [
    "",
    " ",
    "  ",
    "\n",
    "\n\n\n",
    "\t",
    "\r\n",
    "a\r\nb\rc\nd",
    "   leading",
    "trailing   ",
    "two  spaces   three    four",
    "tab\tseparated\t\tvalues",
    "nbsp\u00a0here and\u2009thin\u200bzero\u3000ideographic",
    "\u2028line separator\u2029paragraph",
    " \n \n ",
    "word \n",
]

_NUMBERS = [
    "0 1 12 123 1234 12345 123456 1234567890",
    "3.14159 -2.5e-10 1,000,000 0x1F 0b1010 1_000",
    "١٢٣ ४५६ ๗๘๙ 一二三",
    "2024-01-02T03:04:05Z",
    "$1,234.56 €99 ¥1000 50%",
]

_EMOJI = [
    "😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇯🇵",
    "I ❤️ 🍕!",
    "🙂🙂🙂",
    "\U0001f9d1\u200d\U0001f4bb",
]

_FAMILY_EDGES = [
    # tiktoken patterns: contractions, case, punctuation runs.
    "I'm you're he'll they've we'd it's DON'T",
    "HELLO hello Hello hELLO",
    "!!! ??? ... --- ___ *** ,,,",
    # SentencePiece: the meta symbol and leading spaces.
    "▁ ▁▁ a▁b",
    " a",
    # WordPiece: accents, punctuation, Chinese characters, long words.
    "unaffable ##ing [UNK] [CLS] [SEP]",
    "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 120,
    # byte fallback: unusual code points.
    "\U0001d11e \U00010348 \ue000 \ufffd",
    "<0x41> <s> </s> <unk> <pad> <mask>",
]


def probe_texts(special_tokens: Iterable[str] = ()) -> list[str]:
    """The probe set, with each of ``special_tokens`` alone, in text and cut in half."""
    texts = [*_MULTILINGUAL, *_CODE, *_WHITESPACE, *_NUMBERS, *_EMOJI, *_FAMILY_EDGES]
    for token in sorted(set(special_tokens)):
        half = len(token) // 2
        texts += [token, f"hello{token}world", f"a {token} b", token[:half], token + token]
    return texts
