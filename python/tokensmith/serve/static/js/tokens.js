// The token panes: each tokenizer's cut of the text as colored spans, drawn lazily.
//
// A pane holds chunks of about CHUNK tokens, cut where a line starts. A chunk is an empty
// block of estimated height until it scrolls near the view; then its spans are built, so a
// 10 MB text costs only the spans on screen. The text comes from the page itself: the server
// sends only ids and byte offsets; `u16` maps those to the string's UTF-16 positions.

import {piece} from "./api.js";
import {utf16AtBytes} from "./wire.js";

const CHUNK = 800;
const HARD_LIMIT = 4 * CHUNK;
const LINE_PX = 21.7;
const CHAR_PX = 8.4;

const ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"};
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ESCAPES[c]);
const WS = {" ": "·", "\t": "→", "\n": "↵\n", "\r": "␍"};

function shown(text, whitespace) {
  const escaped = escapeHtml(text);
  return whitespace ? escaped.replace(/[ \t\n\r]/g, (c) => `<span class="ws">${WS[c]}</span>`) : escaped;
}

// Chunks as [firstToken, endToken, firstChar, endChar): cut at tokens that start a line.
function chunksOf(result, text, u16) {
  const n = result.ids.length;
  const chunks = [];
  let first = 0;
  let drawn = 0;
  let from = 0;
  for (let i = 0; i < n; i++) {
    const size = i - first;
    const start = u16[result.byteStarts[i]];
    const lineStart = start > 0 && text.charCodeAt(start - 1) === 10;
    if ((size >= CHUNK && lineStart) || size >= HARD_LIMIT) {
      const to = Math.max(start, drawn);
      chunks.push([first, i, from, to]);
      first = i;
      from = to;
    }
    drawn = Math.max(drawn, u16[result.byteEnds[i]]);
  }
  chunks.push([first, n, from, Math.max(text.length, drawn)]);
  return chunks;
}

function chunkHtml(pane, [first, end, from, to]) {
  const {result, text, marks, whitespace, u16} = pane;
  const parts = [];
  let cursor = from;
  for (let i = first; i < end; i++) {
    const start = Math.max(u16[result.byteStarts[i]], cursor);
    const stop = u16[result.byteEnds[i]];
    if (start > cursor) parts.push(shown(text.slice(cursor, start), whitespace));
    const id = result.ids[i];
    const cls = `tok c${i % 6}${marks[i] ? " diff" : ""}`;
    const attrs = `data-i="${i}" data-id="${id}" tabindex="0"`;
    if (stop > start) {
      parts.push(`<span class="${cls}" ${attrs}>${shown(text.slice(start, stop), whitespace)}</span>`);
      cursor = stop;
    } else {
      const label = result.labels[id] ?? "";
      parts.push(`<span class="${cls} ghost" ${attrs}>${escapeHtml(label)}</span>`);
    }
  }
  if (to > cursor) parts.push(shown(text.slice(cursor, to), whitespace));
  return parts.join("");
}

// How many newlines come before each character: one pass over the text, shared by the panes.
function newlinesBefore(text) {
  const counts = new Uint32Array(text.length + 1);
  let seen = 0;
  for (let c = 0; c < text.length; c++) {
    counts[c] = seen;
    if (text.charCodeAt(c) === 10) seen++;
  }
  counts[text.length] = seen;
  return counts;
}

// An undrawn chunk's height: its lines, with long lines wrapped at the pane's width. Only the
// scrollbar depends on it until the chunk is drawn.
function estimateHeight([, , from, to], newlines, width) {
  const perLine = Math.max(10, Math.floor(width / CHAR_PX));
  const breaks = newlines[to] - newlines[from];
  return Math.ceil((1 + breaks + Math.floor((to - from) / perLine)) * LINE_PX);
}

function drawChunk(pane, element) {
  const chunk = pane.chunks[Number(element.dataset.chunk)];
  element.innerHTML = chunkHtml(pane, chunk);
  element.style.height = "";
  element.dataset.drawn = "1";
}

export class TokenPanes {
  constructor(container, card) {
    this.container = container;
    this.card = card;
    this.panes = [];
    this.hoverToken = null;
    container.addEventListener("mouseover", (e) => this.hover(e.target));
    container.addEventListener("focusin", (e) => this.hover(e.target));
    container.addEventListener("mouseleave", () => this.hideCard());
    container.addEventListener("focusout", () => this.hideCard());
  }

  // Draws every result; calls `onDrawn` once each pane's visible chunks are drawn.
  show(text, data, marks, whitespace, errors = []) {
    for (const pane of this.panes) pane.observer.disconnect();
    this.container.textContent = "";
    this.container.style.setProperty("--cols", String(Math.max(1, data.results.length + errors.length)));
    const newlines = newlinesBefore(text);
    const u16 = utf16AtBytes(text, data.nBytes);
    this.panes = data.results.map((result, k) =>
      this.pane(text, data, result, marks[k], whitespace, newlines, u16));
    for (const message of errors) {
      const box = document.createElement("section");
      box.className = "pane";
      box.innerHTML = `<p class="error"></p>`;
      box.firstChild.textContent = message;
      this.container.appendChild(box);
    }
    this.syncScrolling();
  }

  pane(text, data, result, marks, whitespace, newlines, u16) {
    const box = document.createElement("section");
    box.className = "pane";
    box.dataset.key = result.key;
    const n = result.n_tokens;
    const perToken = (x) => (n ? (x / n).toFixed(2) : "–");
    box.innerHTML = `<h2></h2><div class="stats"><span class="count">${n}</span> tokens · ` +
      `${perToken(data.nBytes)} bytes/token · ${perToken(data.nChars)} chars/token` +
      (data.results.length > 1 ? ` · <span class="differs">${marks.reduce((a, b) => a + b, 0)}` +
        "</span> cut differently" : "") + `</div><div class="tokens"></div>`;
    box.querySelector("h2").textContent = result.label;
    this.container.appendChild(box);
    const scroller = box.querySelector(".tokens");
    const pane = {key: result.key, result, text, marks, whitespace, scroller, u16,
      chunks: chunksOf(result, text, u16)};
    const width = scroller.clientWidth || 600;
    const fragment = document.createDocumentFragment();
    pane.chunks.forEach((chunk, index) => {
      const element = document.createElement("div");
      element.className = "chunk";
      element.dataset.chunk = String(index);
      element.style.height = estimateHeight(chunk, newlines, width) + "px";
      fragment.appendChild(element);
    });
    scroller.appendChild(fragment);
    pane.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting && !entry.target.dataset.drawn) {
          drawChunk(pane, entry.target);
          pane.observer.unobserve(entry.target);
        }
      }
    }, {root: scroller, rootMargin: "400px 0px"});
    for (const element of scroller.children) pane.observer.observe(element);
    // The first chunk is drawn at once: the view is never empty while the observer starts.
    if (scroller.firstChild) {
      drawChunk(pane, scroller.firstChild);
      pane.observer.unobserve(scroller.firstChild);
    }
    return pane;
  }

  syncScrolling() {
    let leader = null;
    for (const pane of this.panes) {
      pane.scroller.addEventListener("scroll", () => {
        if (leader && leader !== pane) return;
        leader = pane;
        const s = pane.scroller;
        const share = s.scrollTop / Math.max(1, s.scrollHeight - s.clientHeight);
        for (const other of this.panes) {
          if (other === pane) continue;
          const o = other.scroller;
          o.scrollTop = share * (o.scrollHeight - o.clientHeight);
        }
        requestAnimationFrame(() => { leader = null; });
      });
    }
  }

  hover(target) {
    const span = target.closest && target.closest(".tok");
    if (!span || span === this.hoverToken) return;
    this.hoverToken = span;
    const key = span.closest(".pane").dataset.key;
    const pane = this.panes.find((p) => p.key === key);
    if (!pane) return;
    const i = Number(span.dataset.i);
    const id = pane.result.ids[i];
    const card = this.card;
    card.querySelector(".id").textContent = String(id);
    card.querySelector(".offsets").textContent =
      `${pane.result.byteStarts[i]}–${pane.result.byteEnds[i]}`;
    for (const field of ["hex", "raw", "kind", "text"]) card.querySelector("." + field).textContent = "…";
    card.dataset.ready = "";
    const box = span.getBoundingClientRect();
    card.style.left = Math.min(box.left, window.innerWidth - 360) + "px";
    card.style.top = (box.bottom + 6 + 120 > window.innerHeight ? box.top - 110 : box.bottom + 6) + "px";
    card.hidden = false;
    piece(key, id).then((info) => {
      if (this.hoverToken !== span) return;
      card.querySelector(".hex").textContent = info.hex;
      card.querySelector(".raw").textContent = info.raw;
      card.querySelector(".kind").textContent = `(${info.kind})`;
      card.querySelector(".text").textContent = JSON.stringify(info.text);
      card.dataset.ready = String(id);
    }).catch(() => { card.querySelector(".kind").textContent = "(not available)"; });
  }

  hideCard() {
    this.hoverToken = null;
    this.card.hidden = true;
  }
}
