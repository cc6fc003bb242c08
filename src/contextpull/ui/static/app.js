// The ContextPull page: the index as a tree, search, grep and sections, over the tools' own JSON.
// No framework and no build step; every answer is a tool payload from /api/<tool>.
"use strict";

const state = JSON.parse(document.getElementById("state").textContent);
const prefix = state.prefix;
const view = document.getElementById("view");
const tree = document.getElementById("tree");
let hits = [];        // ids of the hits on screen, for j/k
let selected = -1;
let section = null;   // the section on screen: {id, prev_id, next_id}

// --- small helpers ------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A snippet marks matched terms with **bold**: shown as <mark>, the rest as plain text (never as HTML).
function marked(text) {
  const out = document.createDocumentFragment();
  text.split("**").forEach((part, index) => out.append(index % 2 ? el("mark", {}, part) : part));
  return out;
}

async function api(tool, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "" && value !== false) query.set(key, value);
  }
  const response = await fetch(`${prefix}/api/${tool}?${query}`, { headers: { Accept: "application/json" } });
  let payload;
  try { payload = await response.json(); } catch { payload = { error: "bad_response", message: `HTTP ${response.status}` }; }
  return { payload, ok: response.ok };
}

function show(...nodes) {
  view.replaceChildren(...nodes.filter((node) => node !== null && node !== undefined));
  view.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function problem(payload) {
  const fix = payload.suggestion ? ` — ${payload.suggestion}` : "";
  return el("p", { class: "error", role: "alert" }, `${payload.message || payload.error}${fix}`);
}

function go(params, push = true) {
  const query = new URLSearchParams(params);
  const url = `${prefix}/` + (query.toString() ? `?${query}` : "");
  if (push) history.pushState(params, "", url);
}

function idLink(id, label) {
  return el("a", { href: `${prefix}/?id=${encodeURIComponent(id)}`, "data-id": id, onclick: (event) => {
    event.preventDefault();
    openSection(id);
  } }, label || id);
}

function copyButton(text) {
  return el("button", { class: "plain", type: "button", title: "copy the id", onclick: (event) => copy(text, event.target) }, "copy id");
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    if (button) button.textContent = "copied";
  } catch {
    window.prompt("Copy the id:", text);
  }
}

// --- the index as a tree --------------------------------------------------------
async function loadTree() {
  const { payload, ok } = await api("documents", {});
  if (!ok) { tree.replaceChildren(problem(payload)); return; }
  const root = { folders: new Map(), documents: [] };
  for (const doc of payload.documents) {
    const parts = doc.path.split("/");
    let node = root;
    for (const folder of parts.slice(0, -1)) {
      if (!node.folders.has(folder)) node.folders.set(folder, { folders: new Map(), documents: [] });
      node = node.folders.get(folder);
    }
    node.documents.push(doc);
  }
  const total = payload.documents.length;
  const sections = payload.documents.reduce((sum, doc) => sum + doc.sections, 0);
  tree.replaceChildren(
    el("p", { class: "meta" }, `${total} documents, ${sections} sections`),
    renderFolder(root, true),
  );
}

function countDocuments(node) {
  let count = node.documents.length;
  for (const child of node.folders.values()) count += countDocuments(child);
  return count;
}

function renderFolder(node, open) {
  const list = el("ul");
  for (const [name, child] of [...node.folders.entries()].sort()) {
    const details = el("details", { open: open ? "" : null },
      el("summary", {}, `${name}/ `, el("span", { class: "count" }, `(${countDocuments(child)})`)),
      renderFolder(child, false));
    list.append(el("li", {}, details));
  }
  for (const doc of node.documents) {
    list.append(el("li", {},
      el("button", { type: "button", title: doc.summary, "data-path": doc.path, onclick: () => openDocument(doc.path) },
        doc.title || doc.path, " ", el("span", { class: "count" }, `(${doc.sections})`))));
  }
  return list;
}

async function openDocument(path, push = true) {
  if (push) go({ doc: path });
  const { payload, ok } = await api("index", { prefix: path });
  if (!ok) { show(problem(payload)); return; }
  hits = []; selected = -1; section = null;
  const lines = payload.text.split("\n").map((line) => {
    const found = line.match(/^\s*- (\S+#\d+)\s+(.*)$/);
    if (!found) return el("div", { class: "meta" }, line);
    hits.push(found[1]);
    return el("div", {}, idLink(found[1]), " ", found[2]);
  });
  show(el("h2", { class: "crumbs" }, path), ...lines);
}

// --- search and grep ------------------------------------------------------------------
function searchParams() {
  return {
    q: document.getElementById("q").value.trim(),
    mode: document.getElementById("mode").value,
    in: document.getElementById("in").value.trim(),
    limit: document.getElementById("limit").value,
  };
}

async function runSearch(params, push = true) {
  if (!params.q) return;
  if (push) go(params);
  const { payload, ok } = await api("search", params);
  renderSearch(params, payload, ok);
}

function renderSearch(params, payload, ok) {
  if (!ok) { show(problem(payload)); return; }
  hits = payload.hits.map((hit) => hit.id);
  selected = -1; section = null;
  const notes = [];
  if (payload.hint) notes.push(el("p", { class: payload.weak ? "hint weak" : "hint", role: "status" }, payload.hint));
  const items = payload.hits.map((hit) => el("li", { "data-id": hit.id },
    el("div", {}, idLink(hit.id, hit.heading_path.join(" › ") || hit.id), " ",
      el("span", { class: "meta" }, `${hit.kind} · ${hit.match}` + (hit.pages ? ` · pages ${hit.pages.join("–")}` : ""))),
    el("div", { class: "id" }, hit.id),
    hit.snippet ? el("p", { class: "snippet" }, marked(hit.snippet)) : null));
  show(
    el("h2", { class: "crumbs" }, `Search: ${payload.query}`, " ",
      el("span", { class: "meta" }, `${payload.hits.length} hits${payload.mode ? ` · ${payload.mode}` : ""}`)),
    ...notes,
    items.length ? el("ol", { class: "hits" }, items) : el("p", { class: "muted" }, "No hits."),
  );
}

async function runGrep(params, push = true) {
  if (!params.grep) return;
  if (push) go(params);
  const { payload, ok } = await api("grep", { pattern: params.grep, regex: params.regex ? "true" : "", in: params.in });
  renderGrep(payload, ok);
}

function renderGrep(payload, ok) {
  if (!ok) { show(problem(payload)); return; }
  hits = payload.matches.map((match) => match.id);
  selected = -1; section = null;
  const items = payload.matches.map((match) => el("li", { "data-id": match.id },
    el("div", {}, idLink(match.id, match.heading_path.join(" › ") || match.id), " ",
      el("span", { class: "meta" }, `${match.doc}:${match.line_number}`)),
    el("pre", { class: "text" }, match.line)));
  show(
    el("h2", { class: "crumbs" }, `Grep: ${payload.pattern}`, " ",
      el("span", { class: "meta" }, `${payload.matches.length} sections${payload.truncated ? " (more not shown)" : ""}${payload.regex ? " · regex" : ""}`)),
    payload.hint ? el("p", { class: "hint" }, payload.hint) : null,
    items.length ? el("ol", { class: "hits" }, items) : el("p", { class: "muted" }, "No matches."),
  );
}

// --- a section with its neighbours ----------------------------------------------------
async function openSection(id, push = true) {
  if (push) go({ id });
  const { payload, ok } = await api("read", { id });
  renderSection(payload, ok);
}

function renderSection(payload, ok) {
  if (!ok) { show(problem(payload)); return; }
  section = payload;
  hits = []; selected = -1;
  const nav = el("div", { class: "bar" },
    payload.prev_id ? el("button", { class: "plain", type: "button", onclick: () => openSection(payload.prev_id), title: "previous section ( [ )" }, "← previous") : null,
    payload.next_id ? el("button", { class: "plain", type: "button", onclick: () => openSection(payload.next_id), title: "next section ( ] )" }, "next →") : null,
    el("button", { class: "plain", type: "button", onclick: () => showNeighbours(payload.id) }, "neighbours"),
    copyButton(payload.id));
  show(
    el("h2", { class: "crumbs" }, payload.heading_path.join(" › ") || payload.doc),
    el("div", { class: "bar" }, el("code", { class: "id", id: "section-id" }, payload.id),
      el("span", { class: "meta" }, `${payload.doc} · ${payload.kind}` + (payload.pages ? ` · pages ${payload.pages.join("–")}` : ""))),
    nav,
    payload.table_header_added ? el("p", { class: "hint" }, "This part continues a table: its header row is shown first.") : null,
    el("pre", { class: "text", id: "section-text" }, payload.text),
    readOn(payload),
    el("div", { id: "neighbours" }));
}

// A long section comes cut to the tool's result size, as the model gets it; the rest is one click away.
function readOn(payload) {
  const cut = payload.truncated;
  if (!cut || cut.offset === undefined) return null;
  const button = el("button", { class: "plain", type: "button", onclick: async () => {
    const { payload: more, ok } = await api("read", { id: payload.id, offset: cut.offset });
    if (!ok) { button.replaceWith(problem(more)); return; }
    const shown = document.getElementById("section-text");
    // the cut text ends with "…" where it stops; the rest starts exactly there
    shown.textContent = shown.textContent.replace(/…$/, "") + more.text;
    button.replaceWith(readOn(more) || el("span"));
  } }, `read on (${cut.text})`);
  return el("p", { class: "meta" }, button);
}

async function showNeighbours(id) {
  const { payload, ok } = await api("neighbours", { id, before: 1, after: 1 });
  const box = document.getElementById("neighbours");
  if (!box) return;
  if (!ok) { box.replaceChildren(problem(payload)); return; }
  const part = (title, rows) => rows.length ? [el("h3", {}, title), ...rows.map((row) => el("div", {},
    el("div", {}, idLink(row.id, row.heading_path.join(" › ") || row.id), " ", el("span", { class: "meta" }, row.kind)),
    el("pre", { class: "text" }, row.text)))] : [];
  box.replaceChildren(
    ...part("Before", payload.before),
    ...part("After", payload.after),
    ...(payload.table_header_section ? part("The table's header is in", [payload.table_header_section]) : []));
}

// --- routing, forms and keys --------------------------------------------------------
function route(params, push = false) {
  if (params.q) {
    document.getElementById("q").value = params.q;
    if (params.mode) document.getElementById("mode").value = params.mode;
    if (params.in) document.getElementById("in").value = params.in;
    if (params.limit) document.getElementById("limit").value = params.limit;
    return runSearch(params, push);
  }
  if (params.id) return openSection(params.id, push);
  if (params.grep) {
    document.getElementById("grep").value = params.grep;
    document.getElementById("regex").checked = Boolean(params.regex);
    return runGrep(params, push);
  }
  if (params.doc) return openDocument(params.doc, push);
  return null;
}

function currentParams() {
  return Object.fromEntries(new URLSearchParams(location.search));
}

function select(index) {
  const items = view.querySelectorAll("[data-id]");
  const rows = [...items].filter((node) => node.tagName === "LI");
  if (!rows.length) return;
  selected = Math.max(0, Math.min(rows.length - 1, index));
  rows.forEach((row, at) => row.classList.toggle("selected", at === selected));
  rows[selected].scrollIntoView({ block: "nearest" });
}

document.getElementById("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runSearch(searchParams());
});

document.getElementById("grep-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runGrep({ grep: document.getElementById("grep").value, regex: document.getElementById("regex").checked ? "1" : "", in: document.getElementById("in").value.trim() });
});

document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
  if (event.key === "Escape" && typing) { document.activeElement.blur(); return; }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const rows = [...view.querySelectorAll("li[data-id]")];
  if (event.key === "/") { event.preventDefault(); document.getElementById("q").focus(); }
  else if (event.key === "g") { event.preventDefault(); document.getElementById("grep").focus(); }
  else if (event.key === "j") select(selected + 1);
  else if (event.key === "k") select(selected - 1);
  else if (event.key === "Enter" && selected >= 0 && rows[selected]) openSection(rows[selected].dataset.id);
  else if (event.key === "[" && section && section.prev_id) openSection(section.prev_id);
  else if (event.key === "]" && section && section.next_id) openSection(section.next_id);
  else if (event.key === "c" && section) copy(section.id, null);
});

window.addEventListener("popstate", () => route(currentParams()));

async function start() {
  view.setAttribute("tabindex", "-1");
  loadTree();
  fetch(`${prefix}/api/report`, { method: "GET" }).then((response) => {
    document.getElementById("report").hidden = !response.ok;
  }).catch(() => {});
  const opened = state.opened;
  if (opened) {
    // the page was served with this answer: show it without asking again
    const params = currentParams();
    if (opened.tool === "search") {
      document.getElementById("q").value = params.q || "";
      renderSearch(params, opened.payload, !opened.is_error);
    } else if (opened.tool === "read") renderSection(opened.payload, !opened.is_error);
    else if (opened.tool === "grep") {
      document.getElementById("grep").value = params.grep || "";
      renderGrep(opened.payload, !opened.is_error);
    }
    return;
  }
  route(currentParams());
}

start();
