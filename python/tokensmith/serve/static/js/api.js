// Talking to the server: JSON calls, and the binary tokenize answer (see serve/wire.py).

export class ApiError extends Error {}

async function checked(response) {
  if (response.ok) return response;
  let message = `${response.status} ${response.statusText}`;
  try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
  throw new ApiError(message);
}

export async function getJson(url) {
  return (await checked(await fetch(url))).json();
}

export async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  return (await checked(response)).json();
}

// The tokens of `text` under each key (layout in serve/wire.py): [{key, label, n_tokens, labels, ids, byteStarts,
// byteEnds, starts, ends}] plus the text's byte and character counts. Arrays are views
// into the one response buffer, not copies.
export async function tokenize(text, keys, signal) {
  const query = keys.map((k) => "t=" + encodeURIComponent(k)).join("&");
  const response = await checked(await fetch("/api/tokenize?" + query, {
    method: "POST", body: text, signal, headers: {"Content-Type": "text/plain; charset=utf-8"},
  }));
  const buffer = await response.arrayBuffer();
  const headerLength = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, headerLength)));
  let offset = 4 + headerLength;
  const take = (Kind, n) => { const a = new Kind(buffer, offset, n); offset += 4 * n; return a; };
  // A contiguous tokenizer's starts are its ends shifted by one, the first at 0.
  const shifted = (ends) => { const s = new Uint32Array(ends.length); s.set(ends.subarray(0, ends.length - 1), 1); return s; };
  const results = header.results.map((r) => {
    const n = r.n_tokens;
    const ids = take(Int32Array, n);
    const byteEnds = take(Uint32Array, n);
    const ends = take(Uint32Array, n);
    const byteStarts = r.contiguous ? shifted(byteEnds) : take(Uint32Array, n);
    const starts = r.contiguous ? shifted(ends) : take(Uint32Array, n);
    return {...r, ids, byteStarts, byteEnds, starts, ends};
  });
  return {nBytes: header.n_bytes, nChars: header.n_chars, results};
}

const pieceCache = new Map();

// One token as the hover card shows it: {raw, hex, text, kind}.
export function piece(key, id) {
  const cacheKey = key + "\u0000" + id;
  if (!pieceCache.has(cacheKey)) {
    pieceCache.set(cacheKey, getJson(`/api/piece?t=${encodeURIComponent(key)}&id=${id}`));
  }
  return pieceCache.get(cacheKey);
}
