// The page's state in its URL: the text, the tokenizers and the view, so a link reproduces
// what is shown. The state is JSON, deflated and base64url-encoded into the fragment (the
// fragment never reaches a server, and the text stays short in the address bar).

function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return "s=" + toBase64Url(await pipe(json, new CompressionStream("deflate-raw")));
}

export async function decodeState(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const packed = params.get("s");
  if (!packed) return null;
  try {
    const json = await pipe(fromBase64Url(packed), new DecompressionStream("deflate-raw"));
    return JSON.parse(new TextDecoder().decode(json));
  } catch (_) {
    return null; // a damaged link: start from the defaults
  }
}
