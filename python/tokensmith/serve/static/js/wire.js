// Reading the binary tokenize answer (its layout is described in serve/wire.py), and mapping
// its byte offsets to the UTF-16 positions the page's string indexes.

export class WireError extends Error {}

// `n` ids of `width` little-endian bytes each.
function readIds(data, n, width) {
  const ids = new Uint32Array(n);
  if (data.length !== n * width) throw new WireError("the ids do not fill their column");
  for (let i = 0, at = 0; i < n; i++, at += width) {
    let id = data[at] + data[at + 1] * 0x100;
    if (width > 2) id += data[at + 2] * 0x10000;
    if (width > 3) id += data[at + 3] * 0x1000000;
    ids[i] = id;
  }
  return ids;
}

// Byte starts and ends from the varint lengths and (when not contiguous) zigzag gaps.
function readSpans(lengths, gaps, n, nBytes) {
  const byteStarts = new Uint32Array(n);
  const byteEnds = new Uint32Array(n);
  let li = 0;
  let gi = 0;
  let end = 0;
  for (let i = 0; i < n; i++) {
    let start = end;
    if (gaps.length) {
      let g = 0;
      for (let scale = 1; ; scale *= 128) {
        const b = gaps[gi++];
        g += (b & 0x7f) * scale;
        if (b < 0x80) break;
      }
      start += g % 2 ? -(g + 1) / 2 : g / 2;
    }
    let length = 0;
    for (let scale = 1; ; scale *= 128) {
      const b = lengths[li++];
      length += (b & 0x7f) * scale;
      if (b < 0x80) break;
    }
    end = start + length;
    if (start < 0 || end > nBytes) throw new WireError(`token ${i} lies outside the text`);
    byteStarts[i] = start;
    byteEnds[i] = end;
  }
  if (li !== lengths.length || gi !== gaps.length) throw new WireError("the spans do not fill their columns");
  return {byteStarts, byteEnds};
}

// The answer as {nBytes, nChars, results: [{key, label, n_tokens, labels, ids, byteStarts, byteEnds}]}.
export function readAnswer(buffer) {
  const bytes = new Uint8Array(buffer);
  const headerLength = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength)));
  let offset = 4 + headerLength;
  const part = (size) => { const p = bytes.subarray(offset, offset + size); offset += size; return p; };
  const results = header.results.map((r) => {
    const [idSize, lengthSize, gapSize] = r.sizes;
    const ids = readIds(part(idSize), r.n_tokens, header.id_bytes);
    return {...r, ids, ...readSpans(part(lengthSize), part(gapSize), r.n_tokens, header.n_bytes)};
  });
  if (offset !== bytes.length) throw new WireError("the answer is longer than its header says");
  return {nBytes: header.n_bytes, nChars: header.n_chars, results};
}

// For each byte offset of `text` in UTF-8 (and its end), the UTF-16 index of the first
// character that starts there or after: a token holding a character's first byte draws that
// character. A lone surrogate counts as the U+FFFD it was sent as.
export function utf16AtBytes(text, nBytes) {
  const at = new Uint32Array(nBytes + 1);
  let b = 0;
  for (let j = 0; j < text.length; j++) {
    const c = text.charCodeAt(j);
    let width = 3;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(j + 1) & 0xfc00) === 0xdc00) { width = 4; units = 2; }
    at[b] = j;
    for (let k = 1; k < width; k++) at[b + k] = j + units;
    b += width;
    j += units - 1;
  }
  if (b !== nBytes) throw new WireError(`the answer is for ${nBytes} bytes, the text has ${b}`);
  at[b] = text.length;
  return at;
}
