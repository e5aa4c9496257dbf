// Live runs: start one from a registered strategy (its source from the exchanges' live
// segments, its declared properties as parameters, optionally on paper), every run of the account with its stage,
// state, desired state and gate verdict (kept current while the page is shown), and the public
// catalogue, which names no owner. One run's page is views/live_run.js.
import { api, showError, strategyNames } from "../lib/api.js";
import { $, esc, tableWrap, toast, view } from "../lib/dom.js";
import { poll, whileShown } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";
import { gateClass, gateLabel, nextCursor, paramFields, paramsFrom, pill, runLabel, runPath, sourceLabel, startedLabel } from "./live_shared.js";
import { strategyLabel } from "./strategies.js";

const PAGE = 20;
const REFRESH_MS = 3000;
// A run on trial gets its verdict without changing stage or state when the trial fails, so
// its detail is read again at least this often while it has none.
const GATE_RECHECK_MS = 15000;

const TYPES = { KLine: "kline", Ticker: "ticker" };

function sourceOptions(exchanges) {
  return exchanges.flatMap((x) => (x.liveSegments || []).map((seg) => {
    const value = `${x.venueType || "cex"}|${x.id}|${seg}`;
    return `<option value="${esc(value)}">${esc(x.id)} ${esc(seg)} (${esc(x.name || x.id)})</option>`;
  })).join("");
}

function ownRow(r) {
  const active = r.desired === "RUNNING";
  const gate = r.gateError ? `<span class="error">${esc(r.gateError)}</span>` : `<span class="pill ${gateClass(r)}">${esc(gateLabel(r))}</span>`;
  return `<tr data-id="${esc(r.runId)}"><td><a href="${runPath(r.runId)}">${esc(runLabel(r))}</a></td>
    <td>${esc(r.strategyName || r.strategyId)}</td><td>${esc(sourceLabel(r.sources))}</td>
    <td class="stage">${pill(r.stage)}</td><td class="state">${pill(r.state)}${r.reason ? ` <span class="muted">${esc(r.reason)}</span>` : ""}</td>
    <td class="desired">${esc(r.desired)}</td><td class="gate">${gate}</td><td class="nowrap">${esc(startedLabel(r.startedAtMs))}</td>
    <td class="actions">${active ? '<button type="button" class="secondary stop">Stop</button>' : ""}</td></tr>`;
}

function publicRow(r) {
  return `<tr data-id="${esc(r.runId)}"><td><a href="${runPath(r.runId)}">${esc(runLabel(r))}</a>${r.description ? ` <span class="muted">${esc(r.description)}</span>` : ""}</td>
    <td>${esc(sourceLabel(r.sources))}</td><td>${pill(r.state)}</td><td class="nowrap">${esc(startedLabel(r.createdAtMs))}</td></tr>`;
}

// The optional paper block: simulated fills and paper accounts (shown on the run's page). Only
// the fields filled in are sent; the service fills in its defaults and says what it refuses.
const PAPER_BLOCK = `<details id="paper-block"><summary>Paper trading</summary>
  <label class="check"><input type="checkbox" name="paper" value="true"> Trade on paper: fill the strategy's hints as a backtest would and keep paper accounts (nothing reaches an exchange)</label>
  <div class="row">
    <div><label>Initial funding (each account, in its own currency)</label><input name="paperFunding" type="number" step="any" placeholder="100"></div>
    <div><label>Fee rate (0.001 is 0.1 %)</label><input name="paperFee" type="number" step="any" placeholder="0.001"></div>
    <div><label>Share of the free balance per entry (%)</label><input name="paperLock" type="number" step="any" placeholder="10 shared, 100 per instrument"></div>
    <div><label>Accounts</label><select name="paperAccounts"><option value="currency">one per quote currency (shared by its pairs)</option><option value="instrument">one per instrument (isolated)</option></select></div>
    <div><label>Output</label><select name="paperOutput"><option value="separate">separate: paper reads only</option><option value="mix">mix: paper items in the signals too</option></select></div>
  </div></details>`;

function paperBody(f) {
  const paper = { accounts: f.get("paperAccounts"), output: f.get("paperOutput") };
  for (const [field, key] of [["paperFunding", "initialFunding"], ["paperFee", "feeRate"], ["paperLock", "percentAmountToLock"]]) {
    const text = String(f.get(field) ?? "").trim();
    if (text !== "") paper[key] = Number(text);
  }
  return paper;
}

const NO_RUNS = '<tr class="empty"><td colspan="9" class="muted">No live runs yet: start one above.</td></tr>';
const NO_PUBLIC = '<tr class="empty"><td colspan="4" class="muted">No public runs right now. A run started with visibility public is listed here once it has passed its sandbox trial (stage LIVE).</td></tr>';

async function liveView() {
  const shown = stillShown();
  const [strategies, { data: exchanges }, { data: account }] = await Promise.all([strategyNames(), api("GET", "/exchanges"), api("GET", "/account")]);
  const sources = sourceOptions(exchanges);
  const minSandbox = account.minSandboxMinutes ?? 5;
  let form = "";
  if (!strategies.list.length) {
    form = '<p id="live-empty">No strategies registered yet: <a href="#/strategies">register one on the Strategies page</a>, then come back to start it live.</p>';
  } else if (!sources) {
    form = '<p id="live-empty" class="error">No exchange on this service offers a live feed (GET /v1/exchanges lists no liveSegments). Ask the operator to enable one.</p>';
  } else {
    form = `<form id="live-form" novalidate><div class="row">
      <div><label>Strategy</label><select name="strategy">${strategies.list.map((s) => `<option value="${esc(s.strategyId)}">${esc(strategyLabel(s.strategyId, s.name))}</option>`).join("")}</select></div>
      <div><label>Exchange and segment</label><select name="source">${sources}</select></div>
      <div><label>Data</label><select name="type"><option value="kline">kline (bars)</option><option value="ticker">ticker (price updates)</option></select></div>
      <div class="wide"><label>Instruments (comma separated)</label><input name="instruments" value="BTC/USDT" placeholder="empty: the strategy's own list, else the whole segment"></div>
      </div>
      <h3>Parameters</h3><div id="live-params" class="muted">choose a strategy</div>
      <h3>Run</h3><div class="row">
      <div><label>Name</label><input name="name" placeholder="optional"></div>
      <div><label>Visibility</label><select name="visibility"><option value="private">private (only you)</option><option value="public">public (listed once live)</option></select></div>
      <div><label>Sandbox trial (minutes of market time)</label><input name="sandboxMinutes" type="number" min="${esc(minSandbox)}" max="1440" step="1" value="${esc(minSandbox)}"></div>
      </div>
      <p class="muted">Your plan's shortest trial is ${esc(minSandbox)} minutes. A strategy whose earlier run passed its trial starts live at once unless you force a new trial.</p>
      <label class="check"><input type="checkbox" name="relay" value="true" checked> Relay: push every signal to the live channel as it is produced (watch it on the run's page)</label>
      <label class="check"><input type="checkbox" name="sandbox" value="true"> Force a new sandbox trial</label>
      ${PAPER_BLOCK}
      <p><button type="submit">Start live run</button></p><p class="error" id="live-error" role="alert"></p></form>`;
  }
  view(shown).innerHTML = `
    <section class="card"><h2>Start a live run</h2>
      <p class="muted">Forward-test a registered strategy on market data as it arrives: nothing is ever sent to an exchange. A new run first runs a sandbox trial (two executions that must agree), then turns live.</p>
      ${form}</section>
    <section class="card"><h2>Your live runs</h2><p class="muted">Every live run of your account, newest first, wherever it was started; kept current while this page is open.</p>
      ${tableWrap(`<table id="live-runs"><thead><tr><th>Run</th><th>Strategy</th><th>Source</th><th>Stage</th><th>State</th><th>Desired</th><th>Gate</th><th>Started (UTC)</th><th>Actions</th></tr></thead><tbody></tbody></table>`)}
      <p><button type="button" class="secondary" id="more-runs" hidden>Show older runs</button></p><p class="error" id="runs-error" role="alert"></p></section>
    <section class="card"><h2>Public runs</h2><p class="muted">Runs anyone may watch: public and live. Their owners are not shown.</p>
      ${tableWrap(`<table id="public-runs"><thead><tr><th>Run</th><th>Source</th><th>State</th><th>Started (UTC)</th></tr></thead><tbody></tbody></table>`)}
      <p><button type="button" class="secondary" id="more-public" hidden>Show more public runs</button></p><p class="error" id="public-error" role="alert"></p></section>`;

  if ($("#live-form")) wireStartForm($("#live-form"));
  const own = ownRuns(strategies);
  const pub = publicRuns();
  await Promise.all([own.first().catch((err) => showError("#runs-error", err)), pub.first().catch((err) => showError("#public-error", err))]);
  poll(async () => {
    await Promise.all([own.refresh().catch((err) => showError("#runs-error", err)), pub.refresh().catch((err) => showError("#public-error", err))]);
    return { done: false };
  }, { every: REFRESH_MS, alive: whileShown($("#live-runs")), limit: Infinity });
}

function wireStartForm(form) {
  const loadStrategy = async () => {
    const id = form.strategy.value;
    try {
      const { data } = await api("GET", `/strategy/${encodeURIComponent(id)}`);
      $("#live-params").classList.remove("muted");
      $("#live-params").innerHTML = paramFields(data.declaredProperties || [], {}, "Empty fields keep the strategy's default (shown greyed).");
      const wanted = (data.requiredSources || []).map((s) => TYPES[s]).find(Boolean);
      if (wanted) form.type.value = wanted;
    } catch (err) { showError("#live-error", err); }
  };
  form.strategy.addEventListener("change", loadStrategy);
  // Filling in a paper field means paper trading.
  $("#paper-block").addEventListener("input", (e) => { if (e.target.name !== "paper") form.paper.checked = true; });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#live-error").textContent = "";
    const f = new FormData(form);
    const [venueType, exchange, segment] = String(f.get("source")).split("|");
    const source = { venueType, exchange, segment, type: f.get("type") };
    const instruments = String(f.get("instruments") || "").split(",").map((i) => i.trim()).filter(Boolean);
    if (instruments.length) source.instruments = instruments;
    const body = { sources: [source], relay: f.get("relay") === "true", visibility: f.get("visibility"), sandbox: f.get("sandbox") === "true" };
    const params = paramsFrom(form);
    if (Object.keys(params).length) body.params = params;
    if (f.get("sandboxMinutes")) body.sandboxMinutes = Number(f.get("sandboxMinutes"));
    if (String(f.get("name") || "").trim()) body.name = String(f.get("name")).trim();
    if (f.get("paper") === "true") body.paper = paperBody(f);
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const { data } = await api("POST", `/strategy/${encodeURIComponent(f.get("strategy"))}/live`, body);
      location.hash = runPath(data.runId);
    } catch (err) { showError("#live-error", err); } finally { button.disabled = false; }
  });
  loadStrategy();
}

// The account's runs: the first page is read again on every refresh and changed rows are
// redrawn in place (a focused Stop button elsewhere keeps its focus); older pages on demand.
function ownRuns(strategies) {
  const tbody = $("#live-runs tbody");
  const shown = new Map();
  const details = new Map();  // runId -> {sig, gate, at}
  let cursor = null;

  // GET /live has no gate: read each run's detail when its stage, state or desired moved
  // (and now and then while it is on trial), not on every refresh.
  const withGates = (runs) => Promise.all(runs.map(async (r) => {
    r.strategyName = strategies.name(r.strategyId);
    const sig = `${r.stage}|${r.state}|${r.desired}`;
    const known = details.get(r.runId);
    const onTrial = r.stage === "SANDBOX" && r.desired === "RUNNING";
    if (known && known.sig === sig && !(onTrial && !known.gate && Date.now() - known.at > GATE_RECHECK_MS)) {
      r.gate = known.gate;
      return;
    }
    try {
      const { data } = await api("GET", `/live/${encodeURIComponent(r.runId)}`);
      r.gate = data.gate;
      details.set(r.runId, { sig, gate: data.gate, at: Date.now() });
    } catch (err) { r.gateError = err.message; }
  }));

  const same = (a, b) => a && JSON.stringify(a) === JSON.stringify(b);
  const place = (runs, where) => {
    for (const r of runs) {
      const tr = tbody.querySelector(`tr[data-id="${CSS.escape(r.runId)}"]`);
      if (tr) {
        if (!same(shown.get(r.runId), r)) tr.outerHTML = ownRow(r);
      } else tbody.insertAdjacentHTML(where, ownRow(r));
      shown.set(r.runId, r);
    }
    tbody.querySelector("tr.empty")?.remove();
    if (!tbody.children.length) tbody.innerHTML = NO_RUNS;
  };
  const read = async (after) => {
    const { data } = await api("GET", `/live?limit=${PAGE}${after ? `&cursor=${encodeURIComponent(after)}` : ""}`);
    await withGates(data.runs);
    return data;
  };

  tbody.addEventListener("click", async (e) => {
    if (!e.target.closest(".stop")) return;
    const tr = e.target.closest("tr");
    const r = shown.get(tr.dataset.id);
    if (!confirm(`Stop live run ${runLabel(r)}? A stopped run cannot be resumed; you can start a new one.`)) return;
    try {
      const { data } = await api("DELETE", `/strategy/${encodeURIComponent(r.strategyId)}/live`);
      toast(`${runLabel(r)}: desired ${data.desired}`);
      place([{ ...r, ...data }], "afterbegin");
    } catch (err) { showError(tr.querySelector(".desired"), err); }
  });
  $("#more-runs").addEventListener("click", async () => {
    try {
      const data = await read(cursor);
      place(data.runs, "beforeend");
      cursor = nextCursor(data);
      $("#more-runs").hidden = !cursor;
    } catch (err) { showError("#runs-error", err); }
  });
  return {
    async first() {
      const data = await read(null);
      place(data.runs, "beforeend");
      cursor = nextCursor(data);
      $("#more-runs").hidden = !cursor;
    },
    async refresh() {
      const data = await read(null);
      // Runs started since (in another tab or an SDK) go on top, newest first.
      const fresh = data.runs.filter((r) => !shown.has(r.runId)).reverse();
      place(data.runs.filter((r) => shown.has(r.runId)), "beforeend");
      place(fresh, "afterbegin");
      $("#runs-error").textContent = "";
    },
  };
}

// The public catalogue: redrawn whole on each refresh (runs leave it when they stop).
function publicRuns() {
  const tbody = $("#public-runs tbody");
  let cursor = null;
  let paged = false;  // the reader asked for more: refreshing page 1 would drop what they read
  let last = null;
  const draw = (runs, append) => {
    const html = runs.map(publicRow).join("");
    if (append) tbody.insertAdjacentHTML("beforeend", html);
    else if (html !== last) tbody.innerHTML = html || NO_PUBLIC;
    if (!append) last = html;
  };
  const read = async (after) => (await api("GET", `/live/public?limit=${PAGE}${after ? `&cursor=${encodeURIComponent(after)}` : ""}`)).data;
  $("#more-public").addEventListener("click", async () => {
    try {
      const data = await read(cursor);
      paged = true;
      draw(data.runs, true);
      cursor = nextCursor(data);
      $("#more-public").hidden = !cursor;
    } catch (err) { showError("#public-error", err); }
  });
  return {
    async first() {
      const data = await read(null);
      draw(data.runs, false);
      cursor = nextCursor(data);
      $("#more-public").hidden = !cursor;
    },
    async refresh() {
      if (paged) return;
      await this.first();
      $("#public-error").textContent = "";
    },
  };
}

register(/^#\/live$/, liveView);
