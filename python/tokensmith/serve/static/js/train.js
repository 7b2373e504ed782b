// Training in the page: post the text, follow the job's server-sent events, then offer the
// result in the pickers, as downloads in every format tokensmith saves it in, and to save
// into the server's folder (--dir), where the next start finds it.

import {postJson} from "./api.js";

export class TrainView {
  constructor(root, onTrained, onSaved) {
    this.root = root;
    this.onTrained = onTrained;
    this.onSaved = onSaved;
    this.text = root.querySelector("#train-text");
    this.algorithm = root.querySelector("#train-algorithm");
    this.vocab = root.querySelector("#train-vocab");
    this.name = root.querySelector("#train-name");
    this.progress = root.querySelector("#train-progress");
    this.log = root.querySelector("#train-log");
    this.downloads = root.querySelector("#train-downloads");
    this.button = root.querySelector("#train-go");
    this.button.addEventListener("click", () => this.start().catch((e) => this.note(e.message)));
    root.querySelector("#train-file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (file) this.text.value = await file.text();
    });
  }

  setAlgorithms(algorithms) {
    this.algorithm.innerHTML = Object.entries(algorithms).map(([key, label]) =>
      `<option value="${key}">${label}</option>`).join("");
  }

  note(line) {
    const item = document.createElement("li");
    item.textContent = line;
    this.log.appendChild(item);
    this.log.scrollTop = this.log.scrollHeight;
  }

  async start() {
    this.log.textContent = "";
    this.downloads.textContent = "";
    this.progress.value = 0;
    this.button.disabled = true;
    const vocabSize = Number(this.vocab.value);
    try {
      const {job} = await postJson("/api/train", {text: this.text.value,
        algorithm: this.algorithm.value, vocab_size: vocabSize, name: this.name.value});
      this.note(`training job ${job} started`);
      await this.follow(job, vocabSize);
    } finally {
      this.button.disabled = false;
    }
  }

  follow(job, vocabSize) {
    return new Promise((resolve) => {
      const events = new EventSource(`/api/train/${job}/events`);
      events.onmessage = (message) => {
        const event = JSON.parse(message.data);
        if (event.stage === "merges") {
          this.progress.value = Math.min(1, (256 + event.done) / vocabSize);
          this.note(`${event.done} merges learned`);
        } else if (event.stage === "done") {
          this.progress.value = 1;
          this.note(`done: ${event.label}`);
          events.close();
          this.onTrained(event.key, event.label).then((formats) => this.offer(event.key, formats));
          resolve();
        } else if (event.stage === "error") {
          this.note(`error: ${event.message}`);
          events.close();
          resolve();
        } else if (event.stage !== "started") {
          const numbers = Object.entries(event).filter(([k]) => !["stage", "time"].includes(k))
            .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : Number(v).toFixed(3)}`).join(", ");
          this.note(`${event.stage} ${numbers}`);
        }
      };
      events.onerror = () => { events.close(); resolve(); };
    });
  }

  async save(key, button) {
    button.disabled = true;
    try {
      const {path} = await postJson(`/api/save/${encodeURIComponent(key)}`, {});
      await this.onSaved();
      this.note(`saved as ${path} in the server's folder: listed under "saved" from now on`);
    } catch (error) {
      this.note(`not saved: ${error.message}`);
      button.disabled = false;
    }
  }

  offer(key, formats) {
    this.downloads.textContent = "";
    const save = document.createElement("button");
    save.type = "button";
    save.id = "train-save";
    save.textContent = "Save on the server";
    save.title = "Write it into the folder the server was started with (--dir), to keep it";
    save.addEventListener("click", () => this.save(key, save));
    this.downloads.append(save, " Download: ");
    for (const format of formats || []) {
      const link = document.createElement("a");
      link.href = `/api/download/${encodeURIComponent(key)}?format=${encodeURIComponent(format)}`;
      link.textContent = format === "all" ? "all formats (.zip)" : format;
      link.setAttribute("download", "");
      this.downloads.appendChild(link);
    }
  }
}
