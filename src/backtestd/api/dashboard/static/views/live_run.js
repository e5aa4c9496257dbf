// One live run: its detail (read again every few seconds), its paper accounts when it trades on
// paper (views/live_paper.js, read on the same beat), its parameters (a change shows the
// new paramsVersion), stop, the signals pushed over the live channel while the page is open,
// and the recorded signals page by page. A run of someone else's that is public and live opens
// here too, read-only: its signals, no detail (the API keeps that to the owner).
import { api, showError } from "../lib/api.js";
import { $, esc, tableWrap, toast, view } from "../lib/dom.js";
import { params as paramsText, utc, utcSeconds } from "../lib/format.js";
import { watchRun } from "../lib/live_channel.js";
import { poll, whileShown } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";
import { paperSection, paperUpdater } from "./live_paper.js";
import { SIGNAL_HEAD, gateClass, gateLabel, nextCursor, paramFields, paramsFrom, pill, runLabel, signalRow, sourceLabel } from "./live_shared.js";

const REFRESH_MS = 2000;
const PAGE = 50;
const PUSHED_KEPT = 200;
const SIGNAL_TYPES = ["hint", "info", "marker", "command", "paper"];
const ENDED = ["STOPPED", "FAILED"];
const CONNECT_HINT_MS = 10000;

// The channel of the run shown; a new render (or leaving the page) closes the previous one.
let watching = null;
function stopWatching() {
  if (watching) watching.stop();
  watching = null;
}
window.addEventListener("hashchange", () => {
  if (watching && location.hash !== watching.hash) stopWatching();
});

function detailRows(run) {
  const stats = run.stats;
  const progress = stats
    ? `${stats.processed} updates, ${stats.opsPerSecond} per second, ${stats.instrumentsSeen} instrument(s), as of ${utcSeconds(stats.asOfMs)}${stats.stale ? " (stale: no progress reported lately)" : ""}`
    : "no progress reported yet";
  const p = paramsText(run.params);
  return `
    <tr><th>Source</th><td id="run-source">${esc(sourceLabel(run.sources))}</td></tr>
    <tr><th>Stage</th><td>${pill(run.stage, "run-stage")}</td></tr>
    <tr><th>State</th><td>${pill(run.state, "run-state")}</td></tr>
    <tr><th>Desired</th><td id="run-desired">${esc(run.desired)}</td></tr>
    <tr><th>Gate</th><td><span class="pill ${gateClass(run)}" id="run-gate">${esc(gateLabel(run) || "none")}</span></td></tr>
    ${run.reason ? `<tr><th>Reason</th><td id="run-reason">${esc(run.reason)}</td></tr>` : ""}
    <tr><th>Parameters</th><td><span id="run-params">${esc(p || "the strategy's defaults")}</span> · version <span id="params-version">${esc(run.paramsVersion)}</span></td></tr>
    <tr><th>Visibility</th><td id="run-visibility">${esc(run.visibility)}</td></tr>
    <tr><th>Relay</th><td id="run-relay">${run.relay ? "on: signals are pushed to the live channel" : "off: signals are recorded, not pushed"}</td></tr>
    ${run.sandboxMinutes != null ? `<tr><th>Sandbox trial</th><td>${esc(run.sandboxMinutes)} minutes of market time</td></tr>` : ""}
    ${run.warmFrom != null ? `<tr><th>Warm-up</th><td>${esc(run.warmFrom)} seconds replayed before the first live update</td></tr>` : ""}
    <tr><th>Started (UTC)</th><td>${esc(utc(run.startedAtMs))}</td></tr>
    ${run.updatedAtMs ? `<tr><th>Changed (UTC)</th><td>${esc(utcSeconds(run.updatedAtMs))}</td></tr>` : ""}
    <tr><th>Progress</th><td id="run-progress">${esc(progress)}</td></tr>`;
}

function paramForm(declared, run) {
  if (!declared.length) return '<p class="muted">This strategy declares no properties, so there is nothing to change while it runs.</p>';
  return `<form id="params-form">${paramFields(declared, run.params || {}, "Only the filled-in properties are sent; an empty one keeps its current value.")}
    <p><button type="submit">Apply parameters</button></p>
    <p id="params-result" class="muted" role="status"></p><p class="error" id="params-error" role="alert"></p></form>`;
}

// The strategy's declared properties (and its name), or none when it was deleted since.
async function strategyOf(id) {
  try {
    const { data } = await api("GET", `/strategy/${encodeURIComponent(id)}`);
    return { name: data.name, declared: data.declaredProperties || [], note: "" };
  } catch (err) {
    if (err.status === 401) throw err;
    return { name: null, declared: [], note: err.message };
  }
}

function signalSections() {
  const types = SIGNAL_TYPES.map((t) => `<option>${t}</option>`).join("");
  return `
    <section class="card"><h2>Signals as they arrive</h2>
      <p id="live-status" class="muted" role="status"></p>
      <p id="live-hint" class="error" hidden>Still not connected after ${CONNECT_HINT_MS / 1000} seconds. The recorded signals below keep working. If this persists, the service may not accept this page's address as an origin for the live channel: open the dashboard at the service's public address, or ask the operator to add this one to BACKTESTD_LIVE_ALLOWED_ORIGINS.</p>
      <p class="muted"><span id="live-count">0</span> signal(s) received over the live channel since this page opened (newest first, the last ${PUSHED_KEPT} kept).</p>
      <div class="scroll" tabindex="0" role="region" aria-label="signals received over the live channel"><table id="live-signals" class="nowrap"><thead>${SIGNAL_HEAD}</thead><tbody><tr class="empty"><td colspan="9" class="muted" id="live-empty">none yet</td></tr></tbody></table></div></section>
    <section class="card"><h2>Recorded signals</h2>
      <p class="muted">Everything the run has recorded, oldest first, whether or not it pushes.</p>
      <form id="signals-form" class="row">
        <div><label>Type</label><select name="type"><option value="">all</option>${types}</select></div>
        <div><label>From (UTC market time, optional)</label><input name="from" placeholder="2026-01-31 12:00"></div>
        <div><button type="submit" id="signals-read">Read</button></div>
      </form>
      <div class="scroll" tabindex="0" role="region" aria-label="recorded signals"><table id="recorded-signals" class="nowrap"><thead>${SIGNAL_HEAD}</thead><tbody></tbody></table></div>
      <p id="signals-note" class="muted" role="status"></p>
      <p><button type="button" class="secondary" id="signals-next" hidden>Next page</button></p>
      <p class="error" id="signals-error" role="alert"></p></section>`;
}

// The pushed-signals list: each signal once (by signalId), newest on top.
function pushedList(runId) {
  const tbody = $("#live-signals tbody");
  const seen = new Set();
  return (signal, offset) => {
    if (!signal || signal.runId !== runId || seen.has(signal.signalId)) return;
    seen.add(signal.signalId);
    tbody.querySelector("tr.empty")?.remove();
    tbody.insertAdjacentHTML("afterbegin", signalRow(signal));
    const tr = tbody.firstElementChild;
    tr.dataset.via = "channel";
    if (offset !== undefined) tr.dataset.offset = String(offset);
    while (tbody.children.length > PUSHED_KEPT) tbody.lastElementChild.remove();
    $("#live-count").textContent = String(seen.size);
  };
}

// Start watching unless nothing can arrive; say why not otherwise.
function watch(runId, run) {
  stopWatching();
  const status = $("#live-status");
  if (run && run.desired === "STOPPED") {
    status.textContent = "This run is stopped: nothing more will arrive. Its recorded signals are below; start a new run from the Live runs page.";
    return;
  }
  if (run && !run.relay) {
    status.textContent = "This run was started without relay, so nothing is pushed: its signals are recorded below. Start a new run with Relay on to watch them arrive.";
    $("#live-empty").textContent = "nothing is pushed for this run";
    return;
  }
  // A refused upgrade (an origin the service does not accept) looks like a network error to
  // the page: the client keeps retrying, and after a while the page says what may be wrong.
  let connected = false;
  const hint = setTimeout(() => { $("#live-hint").hidden = connected; }, CONNECT_HINT_MS);
  const channel = watchRun(runId, {
    onSignal: pushedList(runId),
    onState(kind, sentence) {
      if (kind === "subscribed") {
        connected = true;
        clearTimeout(hint);
        $("#live-hint").hidden = true;
      }
      status.textContent = sentence;
      status.dataset.state = kind;
    },
  });
  watching = { hash: location.hash, stop() { clearTimeout(hint); channel.stop(); } };
}

// The recorded signals, one page at a time. At the end of the record the API gives no next
// cursor; "Next page" then reads on from the last signal's time, skipping what was shown.
function recordedPages(runId) {
  const tbody = $("#recorded-signals tbody");
  const form = $("#signals-form");
  let query = "";
  let cursor = null;
  let last = [];

  const show = (signals, body) => {
    last = signals;
    tbody.innerHTML = signals.map(signalRow).join("") || `<tr class="empty"><td colspan="9" class="muted">No signals recorded yet${form.type.value ? ` of type ${esc(form.type.value)}` : ""}: a run records from its first signal after the warm-up. Read again in a few seconds.</td></tr>`;
    cursor = nextCursor(body);
    const since = body.availableSinceMs ? ` The record now starts at ${utcSeconds(body.availableSinceMs)}.` : "";
    $("#signals-note").textContent = signals.length
      ? `${signals.length} signal(s), ${utcSeconds(signals[0].eventTsMs)} to ${utcSeconds(signals[signals.length - 1].eventTsMs)}; ${cursor ? "more follow." : "the newest recorded so far (Next page reads on as more arrive)."}${since}`
      : since.trim();
    $("#signals-next").hidden = !signals.length;
  };
  const read = async (extra) => {
    $("#signals-error").textContent = "";
    const { data } = await api("GET", `/live/${encodeURIComponent(runId)}/signals?limit=${PAGE}${query}${extra}`);
    return data;
  };
  const first = async () => {
    const type = form.type.value;
    const from = form.from.value.trim();
    let since = "";
    if (from) {
      const ms = Date.parse(`${from.replace(" ", "T")}${/Z|[+-]\d\d:?\d\d$/.test(from) ? "" : "Z"}`);
      if (Number.isNaN(ms)) throw new Error(`"${from}" is not a time: write it as 2026-01-31 12:00 (UTC)`);
      since = `&sinceMs=${ms}`;
    }
    query = type ? `&type=${encodeURIComponent(type)}` : "";
    const data = await read(since);
    show(data.signals, data);
  };
  const next = async () => {
    if (cursor) {
      const data = await read(`&cursor=${encodeURIComponent(cursor)}`);
      show(data.signals, data);
      return;
    }
    const shown = new Set(last.map((s) => s.signalId));
    const data = await read(`&sinceMs=${last[last.length - 1].eventTsMs}`);
    const fresh = data.signals.filter((s) => !shown.has(s.signalId));
    if (!fresh.length) { $("#signals-note").textContent = "No newer signals yet: try again in a few seconds."; return; }
    show(fresh, data);
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); first().catch((err) => showError("#signals-error", err)); });
  $("#signals-next").addEventListener("click", () => next().catch((err) => showError("#signals-error", err)));
  return first;
}

async function liveRunView(runId) {
  const shown = stillShown();
  stopWatching();
  let run;
  try {
    run = (await api("GET", `/live/${encodeURIComponent(runId)}`)).data;
  } catch (err) {
    if (err.status !== 404) throw err;
    return publicRunView(runId, err, shown);
  }
  const strategy = await strategyOf(run.strategyId);
  view(shown).innerHTML = `
    <section class="card"><h2>Live run <span id="run-name">${esc(runLabel(run))}</span></h2>
      <p class="muted"><a href="#/live">All live runs</a> · <span id="refresh-note">refreshed every ${REFRESH_MS / 1000} seconds</span></p>
      ${tableWrap(`<table id="run-detail"><tbody>
        <tr><th>Run id</th><td><code class="id">${esc(run.runId)}</code></td></tr>
        <tr><th>Strategy</th><td><a href="#/strategy/${esc(run.strategyId)}" id="run-strategy">${esc(strategy.name || run.strategyId)}</a></td></tr>
      </tbody><tbody id="run-fields">${detailRows(run)}</tbody></table>`)}
      <p><button type="button" class="danger" id="stop-run" ${run.desired === "RUNNING" ? "" : "hidden"}>Stop run</button></p>
      <p class="error" id="run-error" role="alert"></p><p class="error" id="refresh-error" role="alert"></p></section>
    ${paperSection(run)}
    <section class="card"><h2>Parameters</h2>
      <p class="muted">New values apply a few seconds of market time ahead, in both executions at the same position; every accepted change moves the parameter version.</p>
      ${strategy.note ? `<p class="error" id="params-error">${esc(strategy.note)} (the strategy's properties cannot be read, so they cannot be changed here)</p>` : paramForm(strategy.declared, run)}</section>
    ${signalSections()}`;

  // Only the fields that change are redrawn (the strategy link above keeps a keyboard focus).
  const detail = $("#run-fields");
  let drawn = JSON.stringify(run);
  const redraw = (fresh) => {
    const text = JSON.stringify(fresh);
    if (text === drawn) return;
    drawn = text;
    run = fresh;
    detail.innerHTML = detailRows(run);
    $("#stop-run").hidden = run.desired !== "RUNNING";
  };

  $("#stop-run").addEventListener("click", async () => {
    if (!confirm(`Stop live run ${runLabel(run)}? A stopped run cannot be resumed; you can start a new one.`)) return;
    try {
      const { data } = await api("DELETE", `/strategy/${encodeURIComponent(run.strategyId)}/live`);
      redraw({ ...run, ...data });
      toast(`${runLabel(run)}: desired ${data.desired}`);
    } catch (err) { showError("#run-error", err); }
  });
  const paramsForm = $("#params-form");
  paramsForm?.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#params-error").textContent = "";
    $("#params-result").textContent = "";
    try {
      const { data } = await api("PUT", `/live/${encodeURIComponent(runId)}/params`, { params: paramsFrom(paramsForm) });
      $("#params-version").textContent = String(data.paramsVersion);
      $("#params-result").textContent = `Accepted: parameter version ${data.paramsVersion}, applied from ${utcSeconds(data.effectiveAtMs)} market time (UTC).`;
    } catch (err) { showError("#params-error", err); }
  });

  watch(runId, run);
  const paper = run.paper ? paperUpdater(runId) : null;
  const firstPage = recordedPages(runId);
  await firstPage().catch((err) => showError("#signals-error", err));
  // Read again until the run has ended for good (stopped, or failed after a stop).
  const ended = () => run.desired === "STOPPED" && ENDED.includes(run.state);
  poll(async () => {
    try {
      redraw((await api("GET", `/live/${encodeURIComponent(runId)}`)).data);
      $("#refresh-error").textContent = "";
    } catch (err) { showError("#refresh-error", err); }
    // Read after the detail: once that says the run ended, this read is the book's last state.
    if (paper && document.body.contains(detail)) await paper.refresh();
    return { done: ended() };
  }, { every: REFRESH_MS, alive: whileShown(detail), limit: Infinity }).then(() => {
    if (!ended() || !document.body.contains(detail)) return;
    $("#refresh-note").textContent = "the run has ended: nothing changes any more";
    if (run.relay) {
      stopWatching();
      $("#live-status").textContent = "The run has ended: nothing more will arrive. Start a new run from the Live runs page.";
      $("#live-status").dataset.state = "ended";
    }
  });
}

// Someone else's run: readable when it is public and live (its signals answer), otherwise
// the detail's own 404 message is what there is to say. `shown`: the live run view's (router.js).
async function publicRunView(runId, notOwn, shown) {
  view(shown).innerHTML = `<section class="card"><h2>Public live run <span id="run-name"><code class="id">${esc(runId)}</code></span></h2>
      <p class="muted"><a href="#/live">All live runs</a></p>
      <p id="public-note">This run is not yours: its signals can be read while it is public and live; its settings stay with its owner.</p>
      <p id="run-source"></p></section>
    ${signalSections()}`;
  const firstPage = recordedPages(runId);
  try {
    await firstPage();
  } catch (err) {
    if (err.status === 401) throw err;
    view(shown).innerHTML = `<section class="card"><h2>Live run</h2><p class="error" role="alert" id="run-error">${esc(notOwn.message)}</p>
      <p>${err.status === 404 ? "" : `${esc(err.message)} · `}<a href="#/live">See your live runs and the public ones</a>.</p></section>`;
    return;
  }
  try {
    const { data } = await api("GET", "/live/public?limit=100");
    const entry = data.runs.find((r) => r.runId === runId);
    if (entry) {
      $("#run-name").textContent = runLabel(entry);
      $("#run-source").textContent = `${sourceLabel(entry.sources)} · state ${entry.state}`;
    }
  } catch (_) { /* the name is a nicety; the signals are the page */ }
  watch(runId, null);
}

register(/^#\/live\/([^/]+)$/, liveRunView);
