// The backtestd dashboard: a single page over the public /v1 API (nothing else).
// The JWT lives in this tab's sessionStorage only; jobs this tab started are listed from there.
"use strict";

const API = "/v1";
const $ = (sel, root = document) => root.querySelector(sel);
const view = () => $("#view");
const store = {
  get token() { return sessionStorage.getItem("backtestd.jwt"); },
  set token(v) { v ? sessionStorage.setItem("backtestd.jwt", v) : sessionStorage.removeItem("backtestd.jwt"); },
  jobs(kind) { return JSON.parse(sessionStorage.getItem(`backtestd.${kind}`) || "[]"); },
  addJob(kind, job) {
    const jobs = store.jobs(kind).filter((j) => j.id !== job.id);
    jobs.unshift(job);
    sessionStorage.setItem(`backtestd.${kind}`, JSON.stringify(jobs.slice(0, 50)));
  },
};

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function toast(message) {
  const t = $("#toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(method, path, body, { raw = false, text = false, asText = false } = {}) {
  const headers = {};
  if (store.token) headers.Authorization = `Bearer ${store.token}`;
  let payload;
  if (text) { headers["Content-Type"] = "text/plain"; payload = body; }
  else if (body !== undefined) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
  const response = await fetch(API + path, { method, headers, body: payload });
  if (raw) return response;
  const json = response.headers.get("content-type")?.includes("json");
  const data = json ? await response.json() : asText && response.ok ? await response.text() : null;
  if (response.status === 401 && !path.startsWith("/auth")) {
    // Back to the sign-in form, keeping the location so signing in returns there. The error
    // still propagates (so callers stop), but showError() and route() leave the form alone.
    const expired = new ApiError(401, { message: "your session expired or was refused: sign in again" });
    if (store.token) { store.token = null; signInView(expired.message); }
    throw expired;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// An API error next to what caused it. After a 401 the sign-in form has replaced the view, so
// there is nothing to write into (and the form's own message must stay).
function showError(target, err) {
  if (err && err.status === 401 && !store.token) return;
  const node = typeof target === "string" ? $(target) : target;
  if (node) node.textContent = err && err.message ? err.message : String(err);
}

// ---------------------------------------------------------------- sign-in and account

function signInView(message = "") {
  $("#nav").hidden = true;
  $("#signout").hidden = true;
  $("#who").textContent = "";
  view().innerHTML = `
    <section class="card" style="max-width:32rem">
      <h2>Sign in</h2>
      <p class="muted">Paste an API key (create one with <code>backtestd apikey create --user NAME</code>).
      It is exchanged for a short-lived token kept in this tab only.</p>
      <form id="signin"><label for="apikey">API key</label>
      <input id="apikey" type="password" autocomplete="off" required>
      <p><button type="submit">Sign in</button></p><p id="signin-error" class="error" role="alert">${esc(message)}</p></form>
    </section>`;
  $("#signin").addEventListener("submit", async (e) => {
    e.preventDefault();
    const response = await fetch(`${API}/auth/token`, { method: "POST", headers: { "X-API-Key": $("#apikey").value.trim() } });
    const body = await response.json();
    if (!response.ok) { $("#signin-error").textContent = body.message || `HTTP ${response.status}`; return; }
    store.token = body.access_token;
    if (!location.hash || location.hash === "#/") location.hash = "#/account";
    route();
  });
}

function bar(used, limit) {
  const pct = limit > 0 ? Math.min(100, used / limit * 100) : 0;
  return `<div class="bar" title="${used} of ${limit}"><span style="width:${pct.toFixed(1)}%"></span></div>`;
}

const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;

async function accountView() {
  const [{ data: account }, { data: usage }] = await Promise.all([api("GET", "/account"), api("GET", "/account/usage")]);
  $("#who").textContent = `${account.userId} · ${account.tier}`;
  view().innerHTML = `
    <section class="card"><h2>Account <span class="pill" id="tier">${esc(account.tier)}</span></h2>
      <table><tbody>
        <tr><th>Storage</th><td>${mib(usage.storageBytesUsed)} of ${mib(account.maxTotalStorageBytes)}</td><td>${bar(usage.storageBytesUsed, account.maxTotalStorageBytes)}</td></tr>
        <tr><th>Datasets</th><td>${usage.datasetsUsed} of ${account.maxDatasets}</td><td>${bar(usage.datasetsUsed, account.maxDatasets)}</td></tr>
        <tr><th>Strategies</th><td>${usage.strategiesUsed} (${mib(usage.strategyBytesUsed)})</td><td></td></tr>
        <tr><th>Signals</th><td>${usage.signalsUsed} (${mib(usage.signalBytesUsed)})</td><td></td></tr>
      </tbody></table>
    </section>
    <section class="card"><h2>Limits</h2><table><tbody>
      <tr><th>Concurrent executions and sweeps</th><td id="max-execute">${account.maxExecute}</td></tr>
      <tr><th>Backtest range on own datasets</th><td>${account.maxRangeDays} days</td></tr>
      <tr><th>Full-grid sweep size</th><td>${account.maxSweepCartesian} combinations</td></tr>
      <tr><th>One import range</th><td>${account.maxImportRangeHours} hours</td></tr>
      <tr><th>One dataset version</th><td>${mib(account.maxDatasetBytes)}</td></tr>
    </tbody></table></section>`;
}

// ---------------------------------------------------------------- market data

// Coverage "to" is the end of the last hour with data; the last hour starts an hour earlier.
const lastHourOf = (window) => (window?.to ? new Date(Date.parse(window.to) - 3600e3).toISOString().slice(0, 13) : "");
const downloadName = (i) => (i.settle ? `${i.id}:${i.settle}` : i.id);

async function marketView() {
  const { data: exchanges } = await api("GET", "/exchanges");
  view().innerHTML = `<section class="card"><h2>Market data</h2>
    <div class="row"><div><label for="exchange">Exchange</label><select id="exchange">${exchanges.map((x) => `<option value="${esc(x.id)}">${esc(x.name)} (${esc(x.id)})</option>`).join("")}</select></div>
    <div><label for="segment">Segment</label><select id="segment"><option>spot</option><option>futures</option></select></div></div>
    <div id="instruments"></div></section>
    <section class="card"><h2>Price of one hour</h2>
      <form id="hour-form" class="row" novalidate>
        <div><label>Instrument</label><select name="instrument"></select></div>
        <div><label>Data</label><select name="kind"><option value="tickers">tickers (last trade price)</option><option value="klines">klines (close)</option></select></div>
        <div><label>Day (UTC)</label><input type="date" name="day" required></div>
        <div><label>Hour (UTC)</label><select name="hour">${Array.from({ length: 24 }, (_, h) => `<option>${String(h).padStart(2, "0")}</option>`).join("")}</select></div>
        <div><button type="submit">Show</button></div>
      </form>
      <p id="hour-coverage" class="muted"></p>
      <div id="hour-chart"></div>
      <p id="hour-downloads"></p>
      <p class="error" id="hour-error" role="alert"></p></section>`;
  let instruments = [];
  const form = $("#hour-form");
  const picked = () => instruments.find((i) => i.id === form.instrument.value);
  const showCoverage = () => {
    const i = picked(), window = i?.coverage?.[form.kind.value];
    const last = lastHourOf(window);
    $("#hour-coverage").textContent = window ? `${form.kind.value} of ${i.id}: ${window.from.slice(0, 13)} to ${last} (UTC hours)` : "no coverage for this kind";
    form.day.min = window ? window.from.slice(0, 10) : "";
    form.day.max = last.slice(0, 10);
    if (last) { form.day.value = last.slice(0, 10); form.hour.value = last.slice(11, 13); }
  };
  const load = async () => {
    const ex = $("#exchange").value, seg = $("#segment").value;
    try {
      const { data } = await api("GET", `/exchange/${encodeURIComponent(ex)}/${seg}/instruments`);
      instruments = data.data;
      $("#instruments").innerHTML = `<table id="instrument-table"><thead><tr><th>Instrument</th><th>Tickers</th><th>Klines</th><th>Last price</th><th>Download (latest hour)</th></tr></thead><tbody>${
        data.data.map((i) => {
          const hour = lastHourOf(i.coverage?.tickers);
          const link = (kind, fmt) => `<a href="${API}${hourPath(ex, kind, downloadName(i), hour, fmt)}">${kind} ${fmt}</a>`;
          return `<tr><td>${esc(i.id)}</td><td>${esc(i.coverage?.tickers?.from?.slice(0, 10) || "")} → ${esc(i.coverage?.tickers?.to?.slice(0, 13) || "")}</td><td>${esc(i.coverage?.klines?.from?.slice(0, 10) || "")} → ${esc(i.coverage?.klines?.to?.slice(0, 13) || "")}</td><td>${i.lastPrice ?? ""}</td><td>${hour ? [link("tickers", "lastra"), link("tickers", "parquet"), link("klines", "parquet")].join(" · ") : ""}</td></tr>`;
        }).join("")}</tbody></table>`;
      form.instrument.innerHTML = instruments.map((i) => `<option>${esc(i.id)}</option>`).join("");
      showCoverage();
    } catch (err) { showError("#instruments", err); }
  };
  $("#exchange").addEventListener("change", load);
  $("#segment").addEventListener("change", load);
  form.instrument.addEventListener("change", showCoverage);
  form.kind.addEventListener("change", showCoverage);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#hour-error").textContent = "";
    const i = picked(), kind = form.kind.value, window = i?.coverage?.[kind];
    const hour = `${form.day.value}T${form.hour.value}`;
    if (!window || hour < window.from.slice(0, 13) || hour > lastHourOf(window)) {
      $("#hour-error").textContent = `${hour} is outside the ${kind} coverage of ${i ? i.id : "this instrument"}; pick an hour between ${window ? window.from.slice(0, 13) : "?"} and ${lastHourOf(window) || "?"}`;
      return;
    }
    const ex = $("#exchange").value, name = downloadName(i);
    $("#hour-downloads").innerHTML = `Download ${esc(hour)}: ${["lastra", "parquet", "csv"].map((fmt) => `<a href="${API}${hourPath(ex, kind, name, hour, fmt)}">${kind} ${fmt}</a>`).join(" · ")}`;
    try {
      const [xs, ys] = priceSeries(await fetchText(hourPath(ex, kind, name, hour, "csv")));
      if (!xs.length) { $("#hour-chart").textContent = "This hour has no data."; return; }
      Charts.lineChart($("#hour-chart"), { xs, ys, label: `${i.id} ${kind} price, ${hour} UTC` });
    } catch (err) { showError("#hour-error", err); }
  });
  await load();
}

// ---------------------------------------------------------------- strategies

const JAVA_KW = /\b(abstract|boolean|break|case|catch|class|continue|default|do|double|else|extends|final|float|for|if|implements|import|int|long|new|package|private|protected|public|return|static|strategy|super|switch|this|throw|throws|try|var|void|while|when|window|on|let)\b/g;

function highlight(code, errorLines = new Set()) {
  return code.split("\n").map((line, i) => {
    let html = esc(line)
      .replace(/(\/\/.*)$/, '<span class="com">$1</span>')
      .replace(/(&quot;[^&]*&quot;)/g, '<span class="str">$1</span>')
      .replace(/\b(\d+(\.\d+)?)\b/g, '<span class="num">$1</span>')
      .replace(JAVA_KW, '<span class="kw">$1</span>');
    return `<span class="ln${errorLines.has(i + 1) ? " err" : ""}">${html || " "}</span>`;
  }).join("");
}

function errorLinesOf(message) {
  const lines = new Set();
  for (const m of String(message).matchAll(/Line (\d+), Column \d+/g)) lines.add(Number(m[1]));
  for (const m of String(message).matchAll(/(?:^|\s)(?:\S+\.java)?:(\d+):/g)) lines.add(Number(m[1]));
  return lines;
}

async function strategiesView() {
  const { data } = await api("GET", "/strategies");
  view().innerHTML = `
    <section class="card"><h2>Strategies</h2>
      <table id="strategy-table"><thead><tr><th>Id</th><th>Compiled</th><th>Sources</th></tr></thead><tbody>
      ${data.strategies.map((s) => `<tr class="clickable" data-id="${esc(s.strategyId)}"><td><a href="#/strategy/${esc(s.strategyId)}">${esc(s.strategyId)}</a></td><td>${esc(s.compiledAt)}</td><td>${esc((s.requiredSources || []).join(", "))}</td></tr>`).join("") || '<tr><td colspan="3" class="muted">none yet</td></tr>'}
      </tbody></table></section>
    <section class="card"><h2>Register a strategy</h2>
      <p class="muted">Java (a class extending a strategy base class) or QTScript (starts with <code>strategy</code>).</p>
      <textarea id="source" class="code" spellcheck="false" aria-label="Strategy source"></textarea>
      <p><button id="register">Register</button></p>
      <div id="register-result"></div>
    </section>`;
  for (const row of document.querySelectorAll("#strategy-table tr.clickable")) {
    row.addEventListener("click", () => { location.hash = `#/strategy/${row.dataset.id}`; });
  }
  $("#register").addEventListener("click", async () => {
    const text = $("#source").value;
    const out = $("#register-result");
    try {
      const { data: created } = await api("POST", "/strategy", text, { text: true });
      const props = (created.declaredProperties || []).map((p) => `<li><code>${esc(p.name)}</code> ${esc(p.description || "")} ${p.defaultValue !== undefined ? `(default ${esc(p.defaultValue)})` : ""}</li>`).join("");
      const warnings = (created.warnings || []).map((w) => `<li>${esc(w.message || w)}</li>`).join("");
      out.innerHTML = `<p>Registered <a id="new-strategy" href="#/strategy/${esc(created.strategyId)}">${esc(created.strategyId)}</a></p>${props ? `<ul>${props}</ul>` : ""}${warnings ? `<p>Warnings:</p><ul>${warnings}</ul>` : ""}`;
    } catch (err) {
      if (err.status === 401 && !store.token) return;
      const lines = errorLinesOf(err.message);
      out.innerHTML = `<p class="error" id="compile-error">${esc(err.message)}</p><pre class="code" tabindex="0" role="region" aria-label="submitted source with the error lines marked">${highlight(text, lines)}</pre>`;
    }
  });
}

async function strategyView(id) {
  const [{ data: state }, { data: code }] = await Promise.all([api("GET", `/strategy/${id}`), api("GET", `/strategy/${id}/code`)]);
  const notices = (state.notices || []).map((n) => `<li>${esc(n.level || "")} ${esc(n.message || "")}</li>`).join("");
  const lines = errorLinesOf(notices);
  view().innerHTML = `<section class="card"><h2>${esc(id)} <span class="pill ${esc(state.validation)}" id="validation">${esc(state.validation)}</span></h2>
    <p><button id="validate">Validate</button> <button class="danger" id="delete">Delete</button></p>
    <p class="error" id="strategy-error" role="alert"></p>
    ${notices ? `<ul id="notices">${notices}</ul>` : ""}
    <pre class="code" id="code" tabindex="0" role="region" aria-label="source of ${esc(id)}">${highlight(code.code, lines)}</pre></section>`;
  $("#validate").addEventListener("click", async () => {
    try {
      await api("POST", `/strategy/${id}/validate`);
      for (let i = 0; i < 120; i++) {
        const { data } = await api("GET", `/strategy/${id}`);
        if (data.validation !== "pending") break;
        await sleep(500);
      }
      await strategyView(id);
    } catch (err) { showError("#strategy-error", err); }
  });
  $("#delete").addEventListener("click", async () => {
    if (!confirm(`Delete strategy ${id}?`)) return;
    try {
      await api("DELETE", `/strategy/${id}`);
      location.hash = "#/strategies";
    } catch (err) { showError("#strategy-error", err); }
  });
}

// ---------------------------------------------------------------- backtests

function isoHoursAgo(h) {
  const d = new Date(Date.now() - h * 3600e3);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString().slice(0, 16) + "Z";
}

async function backtestsView() {
  const [{ data: exchanges }, { data: strategies }] = await Promise.all([api("GET", "/exchanges"), api("GET", "/strategies")]);
  const prepares = store.jobs("prepares"), executes = store.jobs("executes");
  view().innerHTML = `
    <section class="card"><h2>Prepare data</h2><form id="prepare-form"><div class="row">
      <div><label>Exchange</label><select name="exchange">${exchanges.map((x) => `<option>${esc(x.id)}</option>`).join("")}</select></div>
      <div><label>Type</label><select name="type"><option>ticker</option><option>kline</option></select></div>
      <div><label>Instrument</label><input name="instrument" value="BTC/USDT"></div>
      <div><label>Cadence (kline)</label><input name="cadence" placeholder="1m"></div>
      <div><label>From (UTC)</label><input name="from" value="${isoHoursAgo(8)}"></div>
      <div><label>To (UTC)</label><input name="to" value="${isoHoursAgo(2)}"></div>
      <div><button type="submit">Prepare</button></div></div><p class="error" id="prepare-error"></p></form></section>
    <section class="card"><h2>Run a backtest</h2><form id="execute-form"><div class="row">
      <div><label>Prepared data</label><select name="prepare">${prepares.map((p) => `<option value="${esc(p.id)}|${esc(p.exchange)}|${esc(p.type)}">${esc(p.label)}</option>`).join("")}</select></div>
      <div><label>Strategy</label><select name="strategy">${strategies.strategies.map((s) => `<option>${esc(s.strategyId)}</option>`).join("")}</select></div>
      <div><label>Params (JSON)</label><input name="params" placeholder='{"fast": 9}'></div>
      <div><label class="check"><input type="checkbox" name="storeSignals" value="true"> Store signals (table, CSV and buy/sell markers on the result page)</label></div>
      <div><button type="submit">Execute</button></div></div><p class="error" id="execute-error"></p></form></section>
    <section class="card"><h2>Jobs of this tab</h2><table id="job-table"><thead><tr><th>Kind</th><th>Job</th><th>Status</th><th>Progress</th><th>Coverage</th><th>Actions</th></tr></thead><tbody></tbody></table></section>`;
  $("#prepare-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { instrument: f.get("instrument"), from: f.get("from"), to: f.get("to") };
    if (f.get("cadence")) body.cadence = f.get("cadence");
    try {
      const { data } = await api("POST", `/backtest/${encodeURIComponent(f.get("exchange"))}/${f.get("type")}/prepare`, body);
      store.addJob("prepares", { id: data.jobId, exchange: f.get("exchange"), type: f.get("type"), label: `${f.get("exchange")} ${f.get("type")} ${body.instrument} ${body.from}→${body.to}` });
      backtestsView();
    } catch (err) { showError("#prepare-error", err); }
  });
  $("#execute-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const [prepareJobId, exchange, type] = String(f.get("prepare")).split("|");
    const body = { prepareJobId, strategyId: f.get("strategy"), storeSignals: f.get("storeSignals") === "true" };
    try {
      if (f.get("params")) body.params = JSON.parse(f.get("params"));
      const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/execute`, body);
      store.addJob("executes", { id: data.jobId, exchange, type, label: `${body.strategyId} on ${prepareJobId}` });
      location.hash = `#/result/${exchange}/${type}/${data.jobId}`;
    } catch (err) { showError("#execute-error", err); }
  });
  const rows = [...prepares.map((p) => ({ ...p, kind: "prepare" })), ...executes.map((x) => ({ ...x, kind: "execute" }))];
  const tbody = $("#job-table tbody");
  tbody.innerHTML = rows.map((j) => `<tr data-id="${esc(j.id)}"><td>${j.kind}</td><td>${j.kind === "execute" ? `<a href="#/result/${esc(j.exchange)}/${esc(j.type)}/${esc(j.id)}">${esc(j.label)}</a>` : esc(j.label)}</td><td class="status"></td><td class="progress"></td><td class="coverage"></td><td>${j.kind === "execute" ? '<button class="secondary cancel">Cancel</button>' : ""}</td></tr>`).join("");
  for (const j of rows) {
    const tr = tbody.querySelector(`tr[data-id="${CSS.escape(j.id)}"]`);
    tr.querySelector(".cancel")?.addEventListener("click", async () => {
      try {
        await api("DELETE", `/backtest/${encodeURIComponent(j.exchange)}/${j.type}/execute/${j.id}`);
        toast(`cancelling ${j.id}`);
      } catch (err) { showError(tr.querySelector(".status"), err); }
    });
    pollRow(j, tr);
  }
}

async function pollRow(job, tr) {
  for (let i = 0; i < 600 && document.body.contains(tr); i++) {
    try {
      let state, cov = "";
      if (job.kind === "prepare") {
        state = (await api("GET", `/backtest/${encodeURIComponent(job.exchange)}/${job.type}/prepare/${job.id}`)).data;
        if (state.coverageRatio !== undefined) cov = `${(state.coverageRatio * 100).toFixed(1)} % of ${state.totalHours} h`;
      } else {
        const response = await api("GET", `/backtest/${encodeURIComponent(job.exchange)}/${job.type}/execute/${job.id}`);
        state = response.status === 202 ? { status: "Started", size: 0, completed: 0 } : response.data.state;
      }
      tr.querySelector(".status").innerHTML = `<span class="pill ${esc(state.status)}">${esc(state.status)}</span>`;
      tr.querySelector(".progress").innerHTML = state.size ? bar(state.completed, state.size) : "";
      tr.querySelector(".coverage").textContent = cov;
      if (["Completed", "Failed", "Aborted"].includes(state.status)) return;
    } catch (err) { showError(tr.querySelector(".status"), err); return; }
    await sleep(1000);
  }
}

function curveArrays(curve) {
  if (curve.points) return [curve.points.map((p) => p.timestamp), curve.points.map((p) => p.equity)];
  return [curve.timestamps, curve.equities];
}

// ---------------------------------------------------------------- routing

const ROUTES = [
  [/^#\/account$/, accountView],
  [/^#\/market$/, marketView],
  [/^#\/strategies$/, strategiesView],
  [/^#\/strategy\/([^/]+)$/, strategyView],
  [/^#\/backtests$/, backtestsView],
];

async function route() {
  if (!store.token) { signInView(); return; }
  $("#nav").hidden = false;
  $("#signout").hidden = false;
  const hash = location.hash || "#/account";
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", hash.startsWith(a.getAttribute("href")));
  for (const [pattern, render] of ROUTES) {
    const m = hash.match(pattern);
    if (m) {
      try { await render(...m.slice(1).map(decodeURIComponent)); } catch (err) {
        if (err.status === 401 && !store.token) return;  // the sign-in form is showing
        view().innerHTML = `<p class="error" role="alert">${esc(err.message)}</p>`;
      }
      return;
    }
  }
  location.hash = "#/account";
}

window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", () => {
  $("#signout").addEventListener("click", () => { store.token = null; sessionStorage.clear(); location.hash = ""; route(); });
  route();
});
