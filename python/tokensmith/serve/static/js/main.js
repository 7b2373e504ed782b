// Wires the page: the pickers, the views, the text, and the state kept in the URL.

import {ApiError, getJson, tokenize} from "./api.js";
import {ChatView, DEFAULT_MESSAGES} from "./chat.js";
import {disagreements, spreadText} from "./compare.js";
import {decodeState, encodeState} from "./state.js";
import {TokenPanes} from "./tokens.js";
import {TrainView} from "./train.js";

const $ = (selector) => document.querySelector(selector);
const DEFAULT_TEXT = "How many r's are in strawberry? 🍓\nTokenizers cut «naïve» text differently: 東京は日本の首都です。\n";
const MAX_URL = 1_500_000;
// The most characters a paste leaves in the text box: Chromium lays out all of a text box's
// text whenever it changes (a megabyte: about a second; 100,000 characters: 150-300 ms;
// 30,000: about 40 ms). A longer text keeps its tail out of the box (drawn in the panes all
// the same) until "edit all" puts it back.
const LARGE = 30_000;
const TEMPLATES = ["own", "chatml", "gemma", "llama2", "llama3", "mistral"];

const page = {
  view: "tokens",
  catalog: [],
  maxTextBytes: 10 * 1024 * 1024,
  inFlight: null,
  tail: "",
  editAll: false,
  timer: null,
  urlTimer: null,
};

function status(message, isError = false) {
  const element = $("#status");
  element.textContent = message;
  element.classList.toggle("error", isError);
}

function picks() {
  return [...document.querySelectorAll(".pick")].map((s) => s.value).filter(Boolean);
}

function fillPickers(chosen) {
  const groups = new Map();
  for (const entry of page.catalog) {
    if (!groups.has(entry.source)) groups.set(entry.source, []);
    groups.get(entry.source).push(entry);
  }
  document.querySelectorAll(".pick").forEach((select, slot) => {
    select.textContent = "";
    select.appendChild(new Option("(none)", ""));
    for (const [source, entries] of groups) {
      const group = document.createElement("optgroup");
      group.label = source;
      for (const e of entries) group.appendChild(new Option(e.label, e.key));
      select.appendChild(group);
    }
    const want = chosen[slot] || "";
    if (want && !page.catalog.some((e) => e.key === want)) {
      select.appendChild(new Option(`${want} (not on offer)`, want));
    }
    select.value = want;
  });
}

async function loadCatalog(chosen) {
  const answer = await getJson("/api/tokenizers");
  page.catalog = answer.tokenizers;
  page.maxTextBytes = answer.max_text_bytes;
  page.algorithms = answer.algorithms;
  fillPickers(chosen);
  return answer;
}

// The whole text: what the box holds, then the tail kept out of it.
function fullText() {
  return $("#text").value + page.tail;
}

// Puts `text` in the box, or its first LARGE characters or so (cut at a line end when one is
// near) with the rest kept as the tail.
function setText(text) {
  const box = $("#text");
  let cut = text.length;
  if (text.length > LARGE && !page.editAll) {
    cut = text.lastIndexOf("\n", LARGE - 1) + 1;
    if (cut < LARGE / 2) cut = LARGE - ((text.charCodeAt(LARGE - 1) & 0xfc00) === 0xd800 ? 1 : 0);
  }
  page.tail = text.slice(cut);
  box.value = cut === text.length ? text : text.slice(0, cut);
  box.dataset.tailLength = String(page.tail.length);
  const note = $("#text-note");
  note.hidden = !page.tail;
  if (page.tail) {
    note.querySelector("span").textContent = `The box holds the first ${cut.toLocaleString()} of ` +
      `${text.length.toLocaleString()} characters; all of them are tokenized and drawn below ` +
      "(selecting all in the box selects all of them).";
  }
}

function currentState() {
  return {text: fullText(), t: picks(), view: page.view, ws: $("#ws").checked,
    chat: page.chat.state()};
}

function saveUrlSoon() {
  clearTimeout(page.urlTimer);
  page.urlTimer = setTimeout(async () => {
    const state = currentState();
    let hash = await encodeState(state);
    if (hash.length > MAX_URL) {
      // Browsers refuse longer addresses: the link keeps the tokenizers and view, not the text.
      hash = await encodeState({...state, text: undefined});
      status("the text is too long to keep in the link", true);
    }
    history.replaceState(null, "", "#" + hash);
    document.body.dataset.saved = String((Number(document.body.dataset.saved) || 0) + 1);
  }, 150);
}

function showView(view) {
  page.view = view;
  for (const section of document.querySelectorAll(".view")) section.hidden = section.id !== "view-" + view;
  for (const tab of document.querySelectorAll("#views button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  }
  refresh();
}

async function renderTokens() {
  const text = fullText();
  const keys = picks();
  if (!keys.length) { status("pick a tokenizer"); $("#panes").textContent = ""; return; }
  // A character is at most 3 UTF-8 bytes (a surrogate pair 4 for 2): count only near the limit.
  if (3 * text.length > page.maxTextBytes && new Blob([text]).size > page.maxTextBytes) {
    status(`the text is over ${page.maxTextBytes} bytes`, true);
    return;
  }
  if (page.inFlight) page.inFlight.abort();
  const controller = new AbortController();
  page.inFlight = controller;
  const started = performance.now();
  status("tokenizing…");
  const data = await tokenize(text, keys, controller.signal);
  if (controller.signal.aborted) return;
  const fetched = performance.now() - started;
  const marks = disagreements(data.results, data.nBytes);
  const marked = performance.now() - started;
  page.panes.show(text, data, marks, $("#ws").checked);
  const drawn = performance.now() - started;
  $("#spread").textContent = spreadText(data.results);
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const ms = performance.now() - started;
  document.body.dataset.renderMs = ms.toFixed(1);
  document.body.dataset.fetchMs = fetched.toFixed(1);
  document.body.dataset.phases = JSON.stringify({fetched, marked, drawn, painted: ms});
  document.body.dataset.renderedKeys = keys.join(" ");
  document.body.dataset.renderedLength = String(text.length);
  document.body.dataset.rendered = String((Number(document.body.dataset.rendered) || 0) + 1);
  status(`${data.nBytes.toLocaleString()} bytes · ${keys.length} tokenizer${keys.length > 1 ? "s" : ""} · ${ms.toFixed(0)} ms`);
}

async function refresh() {
  try {
    if (page.view === "tokens") await renderTokens();
    else if (page.view === "chat") {
      if (picks().length) await page.chat.render(picks());
      status("");
    } else status("");
  } catch (error) {
    if (error.name === "AbortError") return;
    status(error instanceof ApiError ? error.message : String(error), true);
  }
  // After the draw: deflating a long text into the link is not what the user waits for.
  saveUrlSoon();
}

function refreshSoon(delay = 200) {
  clearTimeout(page.timer);
  page.timer = setTimeout(refresh, delay);
}

function openReport() {
  const form = $("#report-form");
  form.textContent = "";
  const field = (name, value) => {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  };
  for (const key of picks()) field("t", key);
  field("text", fullText());
  form.submit();
}

async function readDropped(file) {
  if (file.size > page.maxTextBytes) { status(`${file.name} is over ${page.maxTextBytes} bytes`, true); return; }
  const text = await file.text();
  if (page.view === "train") { $("#train-text").value = text; return; }
  setText(text);
  refreshSoon(0);
}

async function start() {
  page.panes = new TokenPanes($("#panes"), $("#card"));
  page.chat = new ChatView($("#view-chat"), () => refreshSoon(300));
  page.train = new TrainView($("#view-train"), async (key, label) => {
    const chosen = picks();
    const slot = chosen.length < 4 ? chosen.length : 3;
    chosen[slot] = key;
    await loadCatalog(chosen);
    refreshSoon(0);
    status(`trained ${label}: added to tokenizer ${slot + 1}`);
    return (page.catalog.find((e) => e.key === key) || {}).formats;
  }, () => loadCatalog(picks()));
  const state = (await decodeState(location.hash)) || {};
  const answer = await loadCatalog(state.t || ["o200k_base", "cl100k_base"]);
  page.train.setAlgorithms(answer.algorithms);
  page.chat.setState(state.chat || {messages: DEFAULT_MESSAGES});
  page.chat.setTemplates(TEMPLATES, (state.chat || {}).template);
  setText(state.text ?? DEFAULT_TEXT);
  $("#ws").checked = Boolean(state.ws);

  // Replacing all the box holds (select all, then paste or type) replaces the tail too.
  $("#text").addEventListener("beforeinput", () => {
    const box = $("#text");
    if (page.tail && box.selectionStart === 0 && box.selectionEnd === box.value.length) {
      page.tail = "";
      box.dataset.tailLength = "0";
    }
  });
  $("#text").addEventListener("input", (event) => {
    if ($("#text").value.length > LARGE && !page.editAll) setText(fullText());
    // A paste or drop is one edit: no typing pause to wait for, and the request leaves before
    // the browser lays out the box.
    if (/^insertFrom(Paste|Drop)$/.test(event.inputType || "")) {
      clearTimeout(page.timer);
      refresh();
    } else refreshSoon();
  });
  $("#edit-all").addEventListener("click", () => {
    page.editAll = true;
    setText(fullText());
  });
  $("#ws").addEventListener("change", () => refreshSoon(0));
  for (const select of document.querySelectorAll(".pick")) select.addEventListener("change", () => refreshSoon(0));
  for (const tab of document.querySelectorAll("#views button")) tab.addEventListener("click", () => showView(tab.dataset.view));
  $("#report").addEventListener("click", openReport);
  $("#share").addEventListener("click", async () => {
    await navigator.clipboard.writeText(location.href).catch(() => null);
    status("link copied");
  });
  $("#text-file").addEventListener("change", (e) => e.target.files[0] && readDropped(e.target.files[0]));
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    if (e.dataTransfer.files[0]) readDropped(e.dataTransfer.files[0]);
  });
  showView(["tokens", "chat", "train"].includes(state.view) ? state.view : "tokens");
  document.body.dataset.ready = "1";
}

start().catch((error) => status(String(error), true));
