// The chat view: a message editor; each tokenizer's rendered prompt (through a chat template,
// rendered in the server's sandbox) with its tokens per message and per role, and how many
// such conversations fit the context window.

import {postJson} from "./api.js";

const ROLES = ["system", "user", "assistant"];
export const DEFAULT_MESSAGES = [
  {role: "system", content: "You are a helpful assistant."},
  {role: "user", content: "How many r's are in strawberry?"},
  {role: "assistant", content: "There are three r's in \"strawberry\"."},
];

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]);

export class ChatView {
  constructor(root, onChange) {
    this.list = root.querySelector("#chat-messages");
    this.results = root.querySelector("#chat-results");
    this.template = root.querySelector("#chat-template");
    this.window = root.querySelector("#chat-window");
    this.onChange = onChange;
    root.querySelector("#chat-add").addEventListener("click", () => {
      const last = this.messages().at(-1);
      this.addMessage({role: last && last.role === "user" ? "assistant" : "user", content: ""});
      this.onChange();
    });
    this.list.addEventListener("input", () => this.onChange());
    this.list.addEventListener("change", () => this.onChange());
    this.template.addEventListener("change", () => this.onChange());
    this.window.addEventListener("input", () => this.onChange());
  }

  setTemplates(names, chosen) {
    this.template.innerHTML = names.map((n) =>
      `<option value="${escapeHtml(n)}">${n === "own" ? "the tokenizer's own" : escapeHtml(n)}</option>`).join("");
    this.template.value = names.includes(chosen) ? chosen : "chatml";
  }

  addMessage(message) {
    const item = document.createElement("li");
    item.className = "message";
    item.innerHTML = `<div><select class="role" aria-label="role">${ROLES.map((r) =>
      `<option>${r}</option>`).join("")}</select><textarea class="content" aria-label="content"></textarea>` +
      `<button type="button" class="remove" aria-label="remove">✕</button></div>`;
    item.querySelector(".role").value = ROLES.includes(message.role) ? message.role : "user";
    item.querySelector(".content").value = message.content;
    item.querySelector(".remove").addEventListener("click", () => { item.remove(); this.onChange(); });
    this.list.appendChild(item);
  }

  setState(state) {
    this.list.textContent = "";
    for (const m of state.messages || DEFAULT_MESSAGES) this.addMessage(m);
    if (state.window) this.window.value = String(state.window);
    this.chosenTemplate = state.template || "chatml";
  }

  messages() {
    return [...this.list.querySelectorAll(".message")].map((li) => ({
      role: li.querySelector(".role").value, content: li.querySelector(".content").value,
    }));
  }

  state() {
    return {messages: this.messages(), template: this.template.value || this.chosenTemplate,
      window: Number(this.window.value) || 8192};
  }

  async render(keys) {
    const state = this.state();
    const asked = (this.asked = (this.asked || 0) + 1);
    const answer = await postJson("/api/chat", {tokenizers: keys, messages: state.messages,
      template: state.template, context_window: state.window});
    if (asked !== this.asked) return; // a later edit was sent meanwhile: its answer wins
    this.results.textContent = "";
    for (const view of answer.views) this.results.appendChild(this.viewBox(view));
    this.results.dataset.rendered = String(Date.now());
  }

  viewBox(view) {
    const box = document.createElement("section");
    box.className = "chat-result";
    if (view.error) {
      box.innerHTML = `<h3></h3><p class="error"></p>`;
      box.querySelector("h3").textContent = view.tokenizer;
      box.querySelector(".error").textContent = view.error;
      return box;
    }
    const rows = view.messages.map((m, i) =>
      `<tr class="message-count"><td>${i + 1}</td><td>${escapeHtml(m.role)}</td>` +
      `<td class="n">${m.tokens}</td><td>${m.content_tokens}</td></tr>`).join("");
    const roles = Object.entries(view.per_role).map(([role, n]) =>
      `<span class="role-count" data-role="${escapeHtml(role)}">${escapeHtml(role)}: ${n}</span>`).join(" · ");
    const added = (view.added_control_tokens.length
      ? `<p>Control tokens the vocabulary lacks, counted as one token each: ${escapeHtml(view.added_control_tokens.join(" "))}</p>` : "") +
      (view.control_tokens_as_text.length
        ? `<p>Control tokens the vocabulary lacks, counted as the text they spell: ${escapeHtml(view.control_tokens_as_text.join(" "))}</p>` : "");
    const prompt = view.tokens.map(([id, text], i) =>
      `<span class="tok c${i % 6}" data-id="${id}" title="id ${id}">${escapeHtml(text)}</span>`).join("");
    box.innerHTML = `<h3></h3>
      <table><thead><tr><th>#</th><th>role</th><th>tokens</th><th>content alone</th></tr></thead>
      <tbody>${rows}</tbody></table>
      <p>Per role: ${roles}</p>
      <p><span class="total">${view.total_tokens}</span> tokens in all, ${view.generation_prompt_tokens} more
      for the assistant's header; <span class="fits">${view.fits}</span> such conversations fit a context
      window of ${view.context_window}.</p>${added}
      <div class="prompt" aria-label="rendered prompt">${prompt}</div>`;
    box.querySelector("h3").textContent = `${view.tokenizer} · ${view.template}`;
    return box;
  }
}
