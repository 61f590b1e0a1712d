// The page of convofake's admin API: plain DOM, no framework, no request to
// any other host. The admin token comes in the address's fragment
// (#token=...), which the browser never sends; it is kept in sessionStorage
// and sent as the Authorization header.
"use strict";
(function () {
  const state = { token: "", company: "", timer: 0, journalKey: "", open: new Set() };
  const $ = (id) => document.getElementById(id);

  // Invisible characters that change how text reads: the bidirectional
  // controls (a right-to-left override shows "exe.png" as "gnp.exe") and
  // the zero-width ones. The page shows each as a visible mark (U+202E),
  // never obeys it. A zero-width joiner inside an emoji sequence is kept.
  const hidden = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u200B\u200C\u2060\uFEFF\u180E]|(?<!\p{Extended_Pictographic}\uFE0F?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;
  const codeOf = (c) => "U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");

  // visibleText is s with each hidden character written as [U+XXXX], for
  // attributes (alt, download), which hold no markup.
  const visibleText = (s) => String(s).replace(hidden, (c) => "[" + codeOf(c) + "]");

  // visibleNodes is s as text nodes, each hidden character as a marked
  // span that says which it is.
  function visibleNodes(s) {
    s = String(s);
    const out = [];
    let last = 0;
    for (const m of s.matchAll(hidden)) {
      if (m.index > last) out.push(document.createTextNode(s.slice(last, m.index)));
      const mark = document.createElement("span");
      mark.className = "ctl";
      mark.title = "invisible character " + codeOf(m[0]) + ", shown, not obeyed";
      mark.textContent = codeOf(m[0]);
      out.push(mark);
      last = m.index + m[0].length;
    }
    if (last < s.length) out.push(document.createTextNode(s.slice(last)));
    return out;
  }

  // el builds an element; text is always set as text, never as HTML, with
  // its invisible characters shown (visibleNodes).
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "text") e.replaceChildren(...visibleNodes(v));
      else e.setAttribute(k, v === true ? "" : visibleText(v));
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(...(k instanceof Node ? [k] : visibleNodes(k)));
    return e;
  }

  class APIError extends Error {
    constructor(status, body) {
      super((body && body.message) || "HTTP " + status);
      this.status = status;
      this.code = body && body.error;
    }
  }

  async function api(method, path, body) {
    const opts = { method, headers: { Authorization: "Bearer " + state.token }, cache: "no-store" };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const resp = await fetch(path, opts);
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) throw new APIError(resp.status, data);
    return data;
  }

  function say(msg) { $("status").textContent = msg || ""; }
  function alertBox(msg) {
    const a = $("alert");
    a.replaceChildren();
    if (msg) a.append(el("p", { class: "err", text: msg }));
  }

  // fail shows an error; a 401 replaces the whole view: no data is shown.
  function fail(err) {
    if (err instanceof APIError && err.status === 401) {
      stopPolling();
      $("view").replaceChildren();
      $("clockline").textContent = "";
      alertBox(state.token
        ? "The admin token is wrong (401 unauthorized). Open the address convofake printed at start, the one ending in #token=…"
        : "No admin token. Open the address convofake printed at start, the one ending in #token=… (the token stays in the address's fragment and is never sent in a URL).");
      return;
    }
    alertBox(err.message);
  }

  const fmtTime = (s) => (s ? s.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—");

  // takeToken reads the token from the address: #token=<token>, optionally
  // followed by &<view> (e.g. #token=…&inbox?bucket=unanswered, or
  // #token=…&thread/<id>?company=<id>). The token leaves the address bar,
  // the view stays (the conversations when none is given).
  function takeToken() {
    if (location.hash.startsWith("#token=")) {
      const rest = location.hash.slice("#token=".length);
      const amp = rest.indexOf("&");
      state.token = decodeURIComponent(amp < 0 ? rest : rest.slice(0, amp));
      sessionStorage.setItem("convofake-token", state.token);
      history.replaceState(null, "", location.pathname + "#" + (amp < 0 ? defaultView : rest.slice(amp + 1) || defaultView));
    } else {
      state.token = sessionStorage.getItem("convofake-token") || "";
    }
  }

  function stopPolling() { clearInterval(state.timer); state.timer = 0; }

  async function refreshClock() {
    const c = await api("GET", "/_fake/clock");
    $("clockline").textContent = "Fake clock: " + fmtTime(c.now) + (c.frozen ? " (frozen)" : " (real)");
    return c;
  }

  // companySelect is a select of the companies; any adds "any company" (*).
  async function companySelect(current, onchange, any) {
    const list = (await api("GET", "/_fake/companies")).items;
    const opts = list.map((c) => el("option", { value: c.id, selected: c.id === current }, c.id + (c.default ? " (default)" : "")));
    if (any) opts.unshift(el("option", { value: "*", selected: current === "*" }, "any company"));
    return el("label", {}, "Company", el("select", { id: "company", name: "company", onchange: (e) => onchange(e.target.value) }, opts));
  }

  async function defaultCompany() {
    if (!state.company) state.company = (await api("GET", "/_fake/companies")).items[0].id;
    return state.company;
  }

  // ---- views ----

  async function viewCompanies(v) {
    const list = (await api("GET", "/_fake/companies")).items;
    v.append(el("h2", { text: "Companies and channel accounts" }));
    for (const c of list) {
      const ch = await api("GET", "/_fake/state/channels?company=" + encodeURIComponent(c.id));
      v.append(el("section", { "aria-label": "Company " + c.id },
        el("h3", {}, "Company ", el("span", { class: "code", text: c.id }), c.default ? " (default)" : ""),
        el("p", {}, "API key: ", el("span", { class: "code", text: ch.api_key_masked }), " (masked) · contacts: " + c.contacts),
        el("div", { class: "scroll" }, el("table", { class: "stack" },
          el("thead", {}, el("tr", {}, ["Display name", "Channel", "Account id", "Provider identifier", "Status"].map((h) => el("th", { scope: "col", text: h })))),
          el("tbody", {}, ch.items.map((a) => el("tr", {},
            el("td", { "data-label": "Display name", text: a.display_name }),
            el("td", { "data-label": "Channel", text: a.channel }),
            el("td", { "data-label": "Account id", class: "code", text: a.id }),
            el("td", { "data-label": "Provider identifier", class: "code", text: a.provider_identifier }),
            el("td", { "data-label": "Status", text: a.status }))))))));
    }
  }

  const buckets = ["unanswered", "never_engaged", "unassigned", "automation_only"];

  async function viewInbox(v, params) {
    const q = new URLSearchParams(params);
    state.company = q.get("company") || await defaultCompany();
    const reload = () => { location.hash = "inbox?" + new URLSearchParams(formValues(form)).toString(); };
    const form = el("form", { class: "bar", "aria-label": "Filter conversations", onsubmit: (e) => { e.preventDefault(); reload(); } },
      await companySelect(state.company, reload),
      el("label", {}, "Status", el("select", { name: "status" }, ["", "open", "resolved", "archived"].map((s) => el("option", { value: s, selected: q.get("status") === s }, s || "any")))),
      el("label", {}, "Assignment", el("select", { name: "assigned" }, [["", "any"], ["true", "assigned"], ["false", "unassigned"]].map(([val, t]) => el("option", { value: val, selected: q.get("assigned") === val }, t)))),
      el("label", {}, "Anomaly bucket", el("select", { name: "bucket" }, ["", ...buckets].map((b) => el("option", { value: b, selected: q.get("bucket") === b }, b || "any")))),
      el("button", { type: "submit" }, "Apply"));
    v.append(el("h2", { text: "Conversations" }), form);
    q.set("company", state.company);
    const data = await api("GET", "/_fake/state/conversations?" + q.toString());
    v.append(el("p", { class: "muted" }, data.items.length + " conversation(s), newest activity first; waits are measured on the fake clock (" + fmtTime(data.now) + ")."));
    v.append(el("div", { class: "scroll" }, el("table", { class: "stack", id: "inbox" },
      el("thead", {}, el("tr", {}, ["Contact", "Channel", "Status", "Assigned to", "Last message", "Waiting", "Anomalies"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, data.items.map(inboxRow)))));
  }

  function inboxRow(c) {
    const m = c.last_message;
    return el("tr", { "data-id": c.id },
      el("td", { "data-label": "Contact" }, el("a", { href: "#thread/" + encodeURIComponent(c.id) + "?company=" + encodeURIComponent(c.company_id) }, c.contact_name || c.channel_identifier)),
      el("td", { "data-label": "Channel", text: c.channel }),
      el("td", { "data-label": "Status", text: c.status }),
      el("td", { "data-label": "Assigned to", text: c.assigned_to || "unassigned" }),
      el("td", { "data-label": "Last message" }, m ? [(m.direction === "inbound" ? "← " : "→ ") + (m.sender || m.direction) + ": ", m.text || "[" + m.type + "]"] : "none"),
      el("td", { "data-label": "Waiting", text: c.waiting_hours == null ? "not waiting" : c.waiting_hours.toFixed(1) + " h" }),
      el("td", { "data-label": "Anomalies" }, c.buckets.length ? c.buckets.map((b) => el("span", { class: "mark", "data-bucket": b }, "⚠ " + b)) : "none"));
  }

  // viewThread shows a conversation: arg is "<id>?company=<company id>"
  // (ids are unique within a company only).
  async function viewThread(v, arg) {
    const [id, query] = arg.split(/\?(.*)/s);
    const company = new URLSearchParams(query || "").get("company") || await defaultCompany();
    const t = await api("GET", "/_fake/state/conversations/" + encodeURIComponent(id) + "/messages?company=" + encodeURIComponent(company));
    const c = t.conversation;
    v.append(el("p", {}, el("a", { href: "#inbox?company=" + encodeURIComponent(company) }, "← Conversations")),
      el("h2", {}, "Conversation with " + (t.contact_name || c.channel_identifier)),
      el("p", { class: "muted" }, c.channel + " · " + c.status + " · " + (c.assigned_to ? "assigned to " + c.assigned_to : "unassigned") + " · id ", el("span", { class: "code", text: c.id })),
      el("ol", { class: "thread", id: "thread" }, t.messages.map(messageItem)));
    if (!t.messages.length) v.append(el("p", { text: "No messages." }));
  }

  function messageItem(m) {
    const kind = m.sender === "system" ? "system" : m.direction;
    const who = m.sender === "system" ? "System message" : (m.direction === "inbound" ? "Inbound" : "Outbound") + " from " + (m.sender || "?");
    const li = el("li", { class: "msg " + kind, "data-id": m.id },
      el("div", { class: "meta" }, who + " · " + m.type + " · " + fmtTime(m.at) + (m.status ? " · " + m.status : "") + (m.failure_reason ? " · failed: " + m.failure_reason : "")));
    if (m.media) li.append(mediaBlock(m));
    if (m.text) li.append(el("div", { class: "text", text: m.text }));
    if (m.reactions && m.reactions.length) {
      li.append(el("div", { class: "meta" }, "Reactions: " + m.reactions.map((r) => r.emoji + " (" + (r.direction || "?") + ", " + fmtTime(r.at) + ")").join(", ")));
    }
    return li;
  }

  // mediaBlock shows a file. Its content comes from the admin API (with
  // the token, as every read), then is shown from a blob: an image as an
  // image, anything else as a download; no temporary link is made.
  function mediaBlock(m) {
    const md = m.media;
    const name = md.filename || md.media_id || "file";
    const desc = name + " (" + [md.mime_type, md.size ? md.size + " bytes" : "", md.status].filter(Boolean).join(", ") + ")";
    if (!m.media_url) return el("div", {}, "File: " + desc);
    const box = el("div", {}, "File: ", el("a", { href: "#", onclick: (e) => { e.preventDefault(); download(m.media_url, name); } }, desc));
    if (m.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(md.mime_type || "")) {
      blobOf(m.media_url, md.mime_type).then((url) => box.prepend(el("img", { src: url, alt: "Image " + name }))).catch(() => {});
    }
    return box;
  }

  async function blobOf(path, type) {
    const resp = await fetch(path, { headers: { Authorization: "Bearer " + state.token }, cache: "no-store" });
    if (!resp.ok) throw new APIError(resp.status, null);
    return URL.createObjectURL(new Blob([await resp.arrayBuffer()], { type: type || "application/octet-stream" }));
  }

  async function download(path, name) {
    try {
      const url = await blobOf(path);
      el("a", { href: url, download: name }).click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) { fail(e); }
  }

  function formValues(form) {
    const out = {};
    for (const [k, v] of new FormData(form).entries()) if (v !== "") out[k] = v;
    return out;
  }

  async function viewJournal(v) {
    const form = el("form", { class: "bar", "aria-label": "Filter the journal", onsubmit: (e) => { e.preventDefault(); state.journalKey = ""; pollJournal(); } },
      await companySelect(state.journalCompany || "*", (v) => { state.journalCompany = v; state.journalKey = ""; pollJournal(); }, true),
      el("label", {}, "Path pattern", el("input", { name: "path", placeholder: "/conversations/*", id: "jpath" })),
      el("label", {}, "Status", el("input", { name: "status", placeholder: "200, 4xx, 5xx", id: "jstatus", size: 8 })),
      el("button", { type: "submit" }, "Filter"));
    v.append(el("h2", { text: "Request journal" }), form,
      el("p", { class: "muted", text: "Newest first, updated every second. Open a row to see its headers and body (secrets redacted)." }),
      el("div", { id: "journal" }));
    state.journalKey = "";
    await pollJournal();
    state.timer = setInterval(() => pollJournal().catch(fail), 1000);
  }

  function statusMatches(want, got) {
    want = want.trim().toLowerCase();
    if (!want) return true;
    return want.split(/[ ,]+/).some((w) => /^\dxx$/.test(w) ? String(got)[0] === w[0] : String(got) === w);
  }

  async function pollJournal() {
    const box = $("journal");
    if (!box) return;
    const path = $("jpath").value.trim();
    const data = await api("GET", "/_fake/requests" + (path ? "?path=" + encodeURIComponent(path) : ""));
    const co = state.journalCompany || "*";
    const items = data.items.map((r, i) => Object.assign(r, { key: r.time + " " + r.method + " " + r.path + " " + i }))
      .filter((r) => (co === "*" || r.company_id === co) && statusMatches($("jstatus").value, r.status))
      .reverse();
    const key = JSON.stringify([items.length, items.length ? items[0].key : "", co, $("jstatus").value]);
    if (key === state.journalKey) return;
    state.journalKey = key;
    const head = el("div", { class: "reqhead", "aria-hidden": "true" }, ["Time", "Method", "Path", "Status", "Company"].map((h) => el("span", { text: h })));
    box.replaceChildren(items.length ? head : el("p", { text: "No request matches." }), ...items.map(journalRow));
  }

  function journalRow(r) {
    const d = el("details", { class: "req", open: state.open.has(r.key), ontoggle: (e) => { if (e.target.open) state.open.add(r.key); else state.open.delete(r.key); } },
      el("summary", {},
        el("span", { text: fmtTime(r.time) }),
        el("span", { class: "code", text: r.method }),
        el("span", { class: "code", text: (r.prefix || "") + r.path }),
        el("span", { "aria-label": "status " + (r.status || "dropped"), text: String(r.status || "dropped") }),
        el("span", { class: "code", "aria-label": "company " + (r.company_id || "none"), text: r.company_id || "no company" })),
      el("h3", { text: "Query" }), el("pre", { class: "code", text: JSON.stringify(r.query || {}, null, 2) }),
      el("h3", { text: "Headers" }), el("pre", { class: "code", text: JSON.stringify(r.headers || {}, null, 2) }),
      el("h3", { text: "Body" }), el("pre", { class: "code", text: r.body === null ? "(none)" : typeof r.body === "string" ? r.body : JSON.stringify(r.body, null, 2) }));
    return d;
  }

  async function viewFaults(v) {
    const data = await api("GET", "/_fake/faults");
    v.append(el("h2", { text: "Fault rules" }),
      el("p", { class: "muted", text: "Tried in order; the first rule matching a request's method and path answers it. Paths are relative to the base URL (/conversations/*); * matches any run of characters but /." }));
    if (!data.items.length) v.append(el("p", { id: "nofaults", text: "No fault rule is installed." }));
    else v.append(el("div", { class: "scroll" }, el("table", { class: "stack", id: "faults" },
      el("thead", {}, el("tr", {}, ["Id", "Method", "Path", "Status", "Code", "Message", "Latency", "Drop", "Uses left", ""].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, data.items.map((f) => el("tr", {},
        el("td", { "data-label": "Id", text: f.id }),
        el("td", { "data-label": "Method", text: f.method || "any" }),
        el("td", { "data-label": "Path", class: "code", text: f.path || "any" }),
        el("td", { "data-label": "Status", text: f.status || "—" }),
        el("td", { "data-label": "Code", text: f.code || "—" }),
        el("td", { "data-label": "Message", text: f.message || "—" }),
        el("td", { "data-label": "Latency", text: f.latency }),
        el("td", { "data-label": "Drop", text: f.drop ? "yes" : "no" }),
        el("td", { "data-label": "Uses left", text: f.remaining == null ? "every request" : f.remaining }),
        el("td", {}, el("button", { type: "button", class: "danger", "aria-label": "Remove fault rule " + f.id,
          onclick: () => act(() => api("DELETE", "/_fake/faults/" + f.id), "Fault rule " + f.id + " removed.") }, "Remove"))))))));
    const form = el("form", { class: "grid", id: "faultform", "aria-label": "Add a fault rule", onsubmit: (e) => { e.preventDefault(); addFault(form); } },
      el("label", {}, "Method", el("select", { name: "method" }, ["", "GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => el("option", { value: m }, m || "any")))),
      el("label", {}, "Path pattern", el("input", { name: "path", placeholder: "/channels" })),
      el("label", {}, "Status", el("input", { name: "status", inputmode: "numeric", placeholder: "503" })),
      el("label", {}, "Code", el("input", { name: "code", placeholder: "SERVICE_UNAVAILABLE" })),
      el("label", {}, "Message", el("input", { name: "message" })),
      el("label", {}, "Details (JSON)", el("input", { name: "details", placeholder: "{\"field\": \"x\"}" })),
      el("label", {}, "Retry-After", el("input", { name: "retry_after", placeholder: "30s" })),
      el("label", {}, "Latency", el("input", { name: "latency", placeholder: "250ms" })),
      el("label", {}, "Times (0: always)", el("input", { name: "times", inputmode: "numeric", placeholder: "0" })),
      el("label", {}, el("span", {}, el("input", { type: "checkbox", name: "drop", value: "true" }), " drop the connection")),
      el("button", { type: "submit" }, "Add rule"));
    v.append(el("h3", { text: "Add a rule" }), form);
  }

  async function addFault(form) {
    const f = formValues(form);
    const rule = {};
    for (const k of ["method", "path", "code", "message", "retry_after", "latency"]) if (f[k]) rule[k] = f[k];
    for (const k of ["status", "times"]) if (f[k]) rule[k] = Number(f[k]);
    if (f.drop) rule.drop = true;
    if (f.details) {
      try { rule.details = JSON.parse(f.details); } catch (e) { alertBox("Details: not valid JSON"); return; }
    }
    await act(async () => { const r = await api("POST", "/_fake/faults", rule); return r; }, (r) => "Fault rule " + r.id + " added.");
  }

  async function viewClock(v) {
    const c = await refreshClock();
    v.append(el("h2", { text: "Clock" }),
      el("p", { id: "clockreading" }, "Reading: ", el("strong", { text: fmtTime(c.now) }), " · kind: " + (c.frozen ? "frozen (moves only when set or advanced)" : "real (follows the machine; it cannot be moved)")));
    const adv = el("form", { class: "bar", id: "advanceform", "aria-label": "Advance the clock", onsubmit: (e) => { e.preventDefault(); moveClock({ advance: adv.elements.advance.value.trim() }); } },
      el("label", {}, "Advance by (90m, 3h, 2d4h; negative goes back)", el("input", { name: "advance", id: "advance", required: true })),
      el("button", { type: "submit" }, "Advance"),
      ["1h", "4h", "1d"].map((d) => el("button", { type: "button", onclick: () => moveClock({ advance: d }) }, "+" + d)));
    const set = el("form", { class: "bar", id: "setform", "aria-label": "Set the clock", onsubmit: (e) => { e.preventDefault(); moveClock({ set: set.elements.set.value.trim() }); } },
      el("label", {}, "Set to (RFC 3339, e.g. 2026-11-22T10:00:00Z)", el("input", { name: "set", value: c.now, required: true, size: 28 })),
      el("button", { type: "submit" }, "Set"));
    v.append(adv, set);
  }

  function moveClock(body) { return act(() => api("POST", "/_fake/clock", body), (c) => "Clock now " + fmtTime(c.now) + "."); }

  async function viewState(v) {
    v.append(el("h2", { text: "Seed and reset" }),
      el("h3", { text: "Export" }),
      el("p", {}, el("button", { type: "button", id: "export", onclick: exportSeed }, "Download the state as a seed file"),
        " ", el("span", { class: "muted", text: "(loadable with --seed or POST /_fake/seed)" })));
    const seedForm = el("form", { "aria-label": "Load a seed", onsubmit: (e) => { e.preventDefault(); act(replacing(() => api("POST", "/_fake/seed", seedForm.elements.seed.value)), (r) => "Seed loaded." + (r.notice ? " " + r.notice : "")); } },
      el("label", {}, "Seed document (JSON, fake/SEED.md)", el("textarea", { name: "seed", rows: 8, cols: 70, required: true })),
      el("p", {}, el("button", { type: "submit" }, "Load the seed (replaces the data)")));
    v.append(el("h3", { text: "Load" }), seedForm,
      el("h3", { text: "Reset" }),
      el("p", {},
        el("button", { type: "button", class: "danger", id: "reset", onclick: () => confirm("Reset convofake to its start data? Faults and journal are cleared.") && act(replacing(() => api("POST", "/_fake/reset")), (r) => "Reset to the start data." + (r.notice ? " " + r.notice : "")) }, "Reset to the start data"),
        " ",
        el("button", { type: "button", class: "danger", onclick: () => confirm("Empty convofake? Every company but the default goes, with all data.") && act(replacing(() => api("POST", "/_fake/reset", { empty: true })), "Emptied.") }, "Empty everything")));
  }

  // replacing wraps a change that replaces the companies: the company
  // chosen may be gone.
  function replacing(fn) {
    return async () => { const r = await fn(); state.company = ""; state.journalCompany = "*"; return r; };
  }

  async function exportSeed() {
    try {
      const seed = await api("GET", "/_fake/state/seed");
      const url = URL.createObjectURL(new Blob([JSON.stringify(seed, null, 2) + "\n"], { type: "application/json" }));
      el("a", { href: url, download: "convofake-seed.json" }).click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      say("Seed exported.");
    } catch (e) { fail(e); }
  }

  // act runs a change, says what happened, and shows the view again.
  async function act(fn, done) {
    try {
      const r = await fn();
      alertBox("");
      say(typeof done === "function" ? done(r) : done);
      await render(true);
    } catch (e) { fail(e); }
  }

  // defaultView is the view of an address without one.
  const defaultView = "inbox";
  const views = { companies: viewCompanies, inbox: viewInbox, thread: viewThread, journal: viewJournal, faults: viewFaults, clock: viewClock, state: viewState };

  async function render(keepStatus) {
    stopPolling();
    const [name, arg] = (location.hash.slice(1) || defaultView).split(/[\/?](.*)/s);
    const view = views[name] || views[defaultView];
    for (const a of document.querySelectorAll("nav a")) {
      const on = a.getAttribute("href") === "#" + (name === "thread" ? "inbox" : name);
      if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    }
    if (!keepStatus) { say(""); alertBox(""); }
    const v = el("div", {});
    try {
      await refreshClock();
      await view(v, arg ? decodeURIComponent(arg) : "");
      $("view").replaceChildren(v);
      document.body.dataset.view = name;
    } catch (e) { fail(e); }
  }

  takeToken();
  window.addEventListener("hashchange", () => { if (!/token=/.test(location.hash)) render(); else { takeToken(); render(); } });
  render();
})();
