// Backtests: prepare market data or one of the user's datasets, run a strategy on it, and
// every prepare and execute of the account (from the API, wherever it was started).
import { api, listAll, showError, strategyNames } from "../lib/api.js";
import { $, bar, esc, tableWrap, toast, view } from "../lib/dom.js";
import { isoUtc, ratioPercent } from "../lib/format.js";
import { TERMINAL, poll, whileShown } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";
import { executeLabel, knowDatasets, prepareLabel, preparedOptions, resultPath } from "./jobs.js";
import { strategyLabel } from "./strategies.js";

const PAGE = 50;

function isoHoursAgo(h) {
  const d = new Date(Date.now() - h * 3600e3);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString().slice(0, 16) + "Z";
}

function jobRow(j) {
  const what = j.kind === "execute" ? `<a href="${resultPath(j)}">${esc(executeLabel(j))}</a>` : esc(prepareLabel(j));
  const active = !TERMINAL.includes(j.status);
  return `<tr data-id="${esc(j.jobId)}"><td>${j.kind}</td><td class="what">${what}</td><td class="status"><span class="pill ${esc(j.status)}">${esc(j.status)}</span></td>
    <td class="progress">${active && j.size ? bar(j.completed, j.size) : ""}</td><td class="coverage">${j.coverageRatio != null ? esc(ratioPercent(j.coverageRatio)) : ""}</td>
    <td class="created nowrap">${esc(isoUtc(j.createdAt))}</td><td>${j.kind === "execute" && active ? '<button class="secondary cancel">Cancel</button>' : ""}</td></tr>`;
}

async function backtestsView() {
  const shown = stillShown();
  const [{ data: exchanges }, strategies, { data: datasets }, prepares] = await Promise.all([
    api("GET", "/exchanges"), strategyNames(), api("GET", "/datasets"), listAll("/backtest/jobs?kind=prepare", "jobs", 200),
  ]);
  knowDatasets(datasets.datasets);
  const ready = datasets.datasets.filter((d) => d.status === "ready");
  view(shown).innerHTML = `
    <section class="card"><h2>Prepare data</h2><form id="prepare-form"><div class="row">
      <div><label>Source</label><select name="source"><option value="exchange">exchange market data</option><option value="dataset" ${ready.length ? "" : "disabled"}>your dataset${ready.length ? "" : " (none ready)"}</option></select></div>
      <div data-for="exchange"><label>Exchange</label><select name="exchange">${exchanges.map((x) => `<option>${esc(x.id)}</option>`).join("")}</select></div>
      <div data-for="exchange"><label>Instrument</label><input name="instrument" value="BTC/USDT"></div>
      <div data-for="dataset" hidden><label>Dataset</label><select name="datasetId">${ready.map((d) => `<option value="${esc(d.datasetId)}">${esc(d.name)} (${esc(d.instrument)}, ${esc(d.cadence)}, ${esc(d.rows)} rows)</option>`).join("")}</select></div>
      <div><label>Type</label><select name="type"><option>ticker</option><option>kline</option></select></div>
      <div><label>Cadence (optional)</label><input name="cadence" placeholder="1m"></div>
      <div><label>From (UTC)</label><input name="from" value="${isoHoursAgo(8)}"></div>
      <div><label>To (UTC)</label><input name="to" value="${isoHoursAgo(2)}"></div>
      <div><button type="submit">Prepare</button></div></div><p class="error" id="prepare-error" role="alert"></p></form></section>
    <section class="card"><h2>Run a backtest</h2><form id="execute-form"><div class="row">
      <div class="wide"><label>Prepared data</label><select name="prepare">${preparedOptions(prepares)}</select></div>
      <div><label>Strategy</label><select name="strategy">${strategies.list.map((s) => `<option value="${esc(s.strategyId)}">${esc(strategyLabel(s.strategyId, s.name))}</option>`).join("")}</select></div>
      <div><label>Params (JSON)</label><input name="params" placeholder='{"fast": 9}'></div>
      <div><label class="check"><input type="checkbox" name="storeSignals" value="true"> Store signals (table, CSV and buy/sell markers on the result page)</label></div>
      <div><button type="submit">Execute</button></div></div><p class="error" id="execute-error" role="alert"></p></form></section>
    <section class="card"><h2>Jobs</h2><p class="muted">Every prepare and execute of your account, newest first, wherever it was started (this page, another tab, an SDK).</p>
      ${tableWrap(`<table id="job-table"><thead><tr><th>Kind</th><th>Job</th><th>Status</th><th>Progress</th><th>Coverage</th><th>Created (UTC)</th><th>Actions</th></tr></thead><tbody></tbody></table>`)}
      <p><button type="button" class="secondary" id="more-jobs" hidden>Show older jobs</button></p><p class="error" id="jobs-error" role="alert"></p></section>`;

  const form = $("#prepare-form");
  const showSource = () => {
    for (const div of form.querySelectorAll("[data-for]")) div.hidden = div.dataset.for !== form.source.value;
    if (form.source.value === "dataset") fillDatasetRange();
  };
  const fillDatasetRange = () => {
    const d = ready.find((x) => x.datasetId === form.datasetId.value);
    if (!d) return;
    form.from.value = d.from;
    form.to.value = new Date(Date.parse(d.to) + 60e3).toISOString().replace(".000Z", "Z");  // past the last row
    if (d.type === "ticker") form.type.value = "ticker";
  };
  form.source.addEventListener("change", showSource);
  form.datasetId.addEventListener("change", fillDatasetRange);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#prepare-error").textContent = "";
    const f = new FormData(form);
    const body = { from: f.get("from").trim(), to: f.get("to").trim() };
    if (f.get("cadence")) body.cadence = f.get("cadence").trim();
    let exchange = f.get("exchange");
    if (f.get("source") === "dataset") { exchange = "user"; body.datasetId = f.get("datasetId"); } else body.instrument = f.get("instrument").trim();
    try {
      await api("POST", `/backtest/${encodeURIComponent(exchange)}/${f.get("type")}/prepare`, body);
      await backtestsView();
    } catch (err) { showError("#prepare-error", err); }
  });
  $("#execute-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const [prepareJobId, exchange, type] = String(f.get("prepare")).split("|");
    const body = { prepareJobId, strategyId: f.get("strategy"), storeSignals: f.get("storeSignals") === "true" };
    try {
      if (!prepareJobId) throw new Error("prepare data first: no completed prepare to run on");
      if (f.get("params")) {
        try { body.params = JSON.parse(f.get("params")); } catch (_) { throw new Error(`Params must be a JSON object such as {"fast": 9}; ${f.get("params")} is not JSON`); }
      }
      const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/execute`, body);
      location.hash = `#/result/${exchange}/${type}/${data.jobId}`;
    } catch (err) { showError("#execute-error", err); }
  });

  const tbody = $("#job-table tbody");
  const current = new Map();
  let cursor = null;
  const addPage = async () => {
    const { data } = await api("GET", `/backtest/jobs?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    for (const j of data.jobs) current.set(j.jobId, j);
    tbody.insertAdjacentHTML("beforeend", data.jobs.map(jobRow).join(""));
    if (!tbody.children.length) tbody.innerHTML = '<tr class="empty"><td colspan="7" class="muted">no jobs yet: prepare data above</td></tr>';
    cursor = data.next || null;
    $("#more-jobs").hidden = !cursor;
  };
  $("#more-jobs").addEventListener("click", () => addPage().catch((err) => showError("#jobs-error", err)));
  tbody.addEventListener("click", async (e) => {
    if (!e.target.closest(".cancel")) return;
    const tr = e.target.closest("tr");
    const j = current.get(tr.dataset.id);
    try {
      const { data } = await api("DELETE", `/backtest/${encodeURIComponent(j.exchangeId)}/${j.type}/execute/${j.jobId}`);
      // A finished job answers without a status and says so in its message.
      toast(data?.status === "cancelling" ? `cancelling ${executeLabel(j)}` : data?.message ?? "already finished");
    } catch (err) { showError(tr.querySelector(".status"), err); }
  });
  try { await addPage(); } catch (err) { showError("#jobs-error", err); return; }

  // One poll for the whole table: re-read the newest page while any job on it is unfinished,
  // update those rows in place, and offer a prepare that just completed to the execute form.
  poll(async () => {
    const { data } = await api("GET", `/backtest/jobs?limit=${PAGE}`);
    for (const j of data.jobs) {
      const before = current.get(j.jobId);
      current.set(j.jobId, j);
      const tr = tbody.querySelector(`tr[data-id="${CSS.escape(j.jobId)}"]`);
      if (!tr) continue;
      if (before && before.status === j.status && before.completed === j.completed) continue;
      tr.outerHTML = jobRow(j);
    }
    // Offer every completed prepare the form does not list yet. Compared with the form itself,
    // not with the previous poll: the form's list and the table are read at different moments,
    // and a prepare that completed in between was in neither "before" nor the form.
    const select = $("#execute-form select[name=prepare]");
    const offered = new Set([...select.options].map((o) => o.value.split("|")[0]));
    if (data.jobs.some((j) => j.kind === "prepare" && j.status === "Completed" && !offered.has(j.jobId))) {
      const fresh = await listAll("/backtest/jobs?kind=prepare", "jobs", 200);
      select.innerHTML = preparedOptions(fresh);
    }
    return { done: data.jobs.every((j) => TERMINAL.includes(j.status)) };
  }, { every: 1000, alive: whileShown(tbody) }).catch((err) => showError("#jobs-error", err));
}

register(/^#\/backtests$/, backtestsView);
