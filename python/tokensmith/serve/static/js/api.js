// Talking to the server: JSON calls, and the binary tokenize answer (see wire.js).

import {readAnswer} from "./wire.js";

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

// The tokens of `text` under each key: see readAnswer in wire.js.
export async function tokenize(text, keys, signal) {
  const query = keys.map((k) => "t=" + encodeURIComponent(k)).join("&");
  const response = await checked(await fetch("/api/tokenize?" + query, {
    method: "POST", body: text, signal, headers: {"Content-Type": "text/plain; charset=utf-8"},
  }));
  return readAnswer(await response.arrayBuffer());
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
