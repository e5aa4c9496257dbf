// One sweep: live progress, the leaderboard (sortable, ranked/natural, plateau/raw, objective;
// DSR and PBO explained), every sensitivity marginal with its legend, one heatmap per axis pair
// with its colour scale, the walk-forward folds on a time axis, the retained trials' equity
// curves overlaid, and "re-run this row".
import { api, showError } from "../lib/api.js";
import { foldTimeline, heatmap, lineChart, marginalChart } from "../lib/charts.js";
import { $, $$, bar, esc, tableWrap, toast, view } from "../lib/dom.js";
import { fixed, params, percent, utc } from "../lib/format.js";
import { poll, whileShown } from "../lib/poll.js";
import { register } from "../lib/router.js";
import { curveArrays } from "./result.js";
import { OBJECTIVES } from "./sweeps.js";

const LEADERBOARD_COLUMNS = [
  ["rank", "#"], ["runIx", "Run"], ["params", "Params"], ["sharpe", "Sharpe"], ["sortino", "Sortino"],
  ["plateauScore", "Plateau"], ["pnlPct", "PnL %"], ["maxDdPct", "Max DD %"], ["trades", "Trades"], ["deflatedSharpe", "DSR"],
];
const DIGITS = { sharpe: 2, sortino: 2, plateauScore: 2, pnlPct: 2, maxDdPct: 2, deflatedSharpe: 3 };
const OVERLAY_LIMIT = 20;
const LEGEND = `<ul class="legend marginal-legend"><li><span class="swatch m-best"></span>best</li><li><span class="swatch m-mean"></span>mean</li><li><span class="swatch m-worst"></span>worst</li></ul>`;

function sortRows(rows, key, dir) {
  if (!key) return rows;
  const value = (r) => (key === "params" ? params(r.params) : r[key]);
  const sign = dir === "ascending" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = value(a), vb = value(b);
    if (va === undefined || va === null) return 1;  // empty cells last either way
    if (vb === undefined || vb === null) return -1;
    return (va < vb ? -1 : va > vb ? 1 : 0) * sign;
  });
}

function leaderboardRow(r) {
  const cells = LEADERBOARD_COLUMNS.map(([k]) => {
    if (k === "params") return `<td><code>${esc(params(r.params))}</code></td>`;
    if (k === "trades") return `<td>${r.trades}${r.aborted ? " (aborted)" : ""}</td>`;
    if (k === "rank" || k === "runIx") return `<td>${r[k] ?? ""}</td>`;
    const v = r[k];
    return `<td data-col="${k}" data-value="${v ?? ""}">${v === undefined || v === null ? "" : esc(fixed(v, DIGITS[k]))}</td>`;
  }).join("");
  const curve = r.equityCurve ? `<button type="button" class="secondary show-curve" data-run="${r.runIx}">Highlight curve</button> ` : "";
  return `<tr class="${r.equityCurve ? "clickable" : ""}" data-run="${r.runIx}">${cells}<td class="actions">${curve}<button type="button" class="secondary rerun" data-run="${r.runIx}">Re-run</button></td></tr>`;
}

function renderMarginals(sens) {
  $("#marginals").innerHTML = (sens.marginals.length ? LEGEND : "") + (sens.marginals.map((m) => `<figure class="marginal" data-param="${esc(m.param)}">
      <figcaption><code>${esc(m.param)}</code>: ${esc(sens.objective)} by value (best, mean and worst over the other axes)</figcaption>
      <div class="marginal-chart"></div>
      ${tableWrap(`<table><thead><tr><th>${esc(m.param)}</th><th>Runs</th><th>Best</th><th>Mean</th><th>Worst</th></tr></thead><tbody>
      ${m.points.map((p) => `<tr><td>${esc(p.value)}</td><td>${p.count}</td><td>${fixed(p.best, 3)}</td><td>${fixed(p.mean, 3)}</td><td>${fixed(p.worst, 3)}</td></tr>`).join("")}
      </tbody></table>`)}</figure>`).join("") || '<p class="muted">no finished runs yet</p>');
  sens.marginals.forEach((m, i) => marginalChart($$("#marginals .marginal-chart")[i], m));
}

function renderHeatmaps(sens) {
  const box = $("#heatmaps");
  box.innerHTML = sens.heatmaps.map((h) => `<figure class="heatmap-figure" data-pair="${esc(h.paramA)}|${esc(h.paramB)}"><figcaption><code>${esc(h.paramA)}</code> × <code>${esc(h.paramB)}</code>: mean ${esc(sens.objective)} of the runs in each cell (the colour scale is under the map${sens.objective === "maxdd" ? "; lower drawdown is greener" : "; green above zero, red below"})</figcaption><div></div></figure>`).join("");
  $$(".heatmap-figure > div", box).forEach((div, i) => heatmap(div, sens.heatmaps[i], "mean", sens.objective));
  if (!sens.heatmaps.length) box.innerHTML = `<p class="muted">${sens.marginals.length < 2 ? "one axis: no pairs to map (see its marginal above)" : "no finished runs yet"}</p>`;
  $("#heatmaps-note").textContent = sens.heatmapsTruncated ? "Only the first axis pairs are mapped (heatmapsTruncated): the sweep has more pairs than the service maps." : "";
}

// The folds' bounds in epoch ms: the service's times, or (folds stored before the service
// recorded them) row indices spread evenly over the prepared window, marked approximate.
function foldTimes(results, window) {
  if (results.every((f) => f.inSampleFromTime)) {
    return { approximate: false, folds: results.map((f) => ({ foldIx: f.foldIx, from: Date.parse(f.inSampleFromTime), cut: Date.parse(f.inSampleToTime), to: Date.parse(f.outOfSampleToTime) })) };
  }
  if (!window) return null;
  const from = Date.parse(window.from), to = Date.parse(window.to);
  const rows = Math.max(...results.map((f) => f.outOfSampleTo));
  const at = (i) => from + (to - from) * i / rows;
  return { approximate: true, folds: results.map((f) => ({ foldIx: f.foldIx, from: at(f.inSampleFrom), cut: at(f.inSampleTo), to: at(f.outOfSampleTo) })) };
}

function foldTable(results, times) {
  return tableWrap(`<table id="fold-table"><thead><tr><th>Fold</th><th>In-sample (UTC)</th><th>Out-of-sample (UTC)</th><th>Winner</th><th>In-sample Sharpe</th><th>Out-of-sample PnL</th><th>Out-of-sample Sharpe</th></tr></thead><tbody>${
    results.map((f, i) => {
      const t = times?.folds[i];
      return `<tr><td>${f.foldIx}</td><td>${t ? `${esc(utc(t.from))} → ${esc(utc(t.cut))}` : ""}</td><td>${t ? `${esc(utc(t.cut))} → ${esc(utc(t.to))}` : ""}</td><td><code>${esc(params(f.params))}</code></td>
        <td>${esc(fixed(f.inSampleSharpe, 2))}</td><td>${esc(percent(f.outOfSample?.pnlPct))}</td><td>${esc(fixed(f.outOfSample?.sharpe, 2))}</td></tr>`;
    }).join("")}</tbody></table>`);
}

async function sweepView(exchange, type, request, id) {
  const base = `/backtest/${encodeURIComponent(exchange)}/${type}/executeSweep/${request}/${id}`;
  view().innerHTML = `<section class="card"><h2>Sweep <span id="sweep-name"></span> <span class="pill" id="sweep-status"></span></h2>
      <p class="muted wrap" id="sweep-data"></p>
      <div id="sweep-progress"></div><p><button class="danger" id="cancel-sweep">Cancel</button></p><p class="error" id="sweep-error" role="alert"></p></section>
    <section class="card"><h2>Leaderboard</h2>
      <div class="row">
        <div><label>Order</label><select id="lb-order"><option value="ranked">ranked</option><option value="natural">natural (run order)</option></select></div>
        <div><label>Ranking</label><select id="lb-ranking"><option value="plateau">plateau (mean of the neighbourhood)</option><option value="raw">raw (the run's own value)</option></select></div>
        <div><label>Objective</label><select id="lb-objective">${OBJECTIVES.map((o) => `<option>${o}</option>`).join("")}</select></div>
      </div>
      ${tableWrap(`<table id="leaderboard"><thead><tr>${LEADERBOARD_COLUMNS.map(([k, label]) => `<th aria-sort="none" data-key="${k}"><button type="button" class="sort">${label}</button></th>`).join("")}<th>Actions</th></tr></thead><tbody></tbody></table>`)}
      <p id="leaderboard-note" class="muted"></p>
      <p class="muted" id="dsr-help"><strong>DSR</strong> (deflated Sharpe ratio): the probability that the run's true Sharpe ratio is above zero once the number of trials tried and the returns' skew and fat tails are accounted for; near 1 is convincing, near 0 is what luck alone would give.</p>
      <p class="muted" id="pbo-help"><strong>PBO</strong> (probability of backtest overfitting): how often the configuration that is best on one half of the period ranks below the median on the other half; above 50 % the choice is likely overfit.</p>
      <p id="pbo"></p>
      <p class="error" id="leaderboard-error" role="alert"></p></section>
    <section class="card"><h2>Sensitivity</h2><div id="marginals"></div></section>
    <section class="card"><h2>Heatmaps</h2><div id="heatmaps"></div><p id="heatmaps-note" class="muted"></p></section>
    <section class="card"><h2>Equity of the retained trials</h2><div id="trial-chart" class="muted">The curves appear when the sweep has finished.</div><ul id="trial-legend" class="legend"></ul><p class="error" id="trial-error" role="alert"></p></section>
    <section class="card" id="walk-forward" hidden><h2>Walk-forward folds</h2><div id="fold-chart"></div><ul class="legend"><li><span class="swatch is"></span>in-sample (the winner is chosen here)</li><li><span class="swatch oos"></span>out-of-sample (the winner is judged here)</li></ul><p id="fold-note" class="muted"></p><div id="fold-list"></div><p id="fold-summary" class="muted"></p></section>`;
  const root = $("#leaderboard");
  // While this page is shown: another page (another sweep's too) replaces its elements.
  const shown = whileShown(root);
  const ui = { sortKey: null, sortDir: "descending", objective: null, rows: [], finished: false, curves: new Map(), highlight: undefined };
  const prepare = await api("GET", `/backtest/jobs/${request}`).then((r) => r.data, () => null);
  if (!shown()) return;  // left meanwhile: nothing below may touch the page shown now
  if (prepare?.window) $("#sweep-data").textContent = `on ${prepare.window.instrument}, ${utc(Date.parse(prepare.window.from))} → ${utc(Date.parse(prepare.window.to))} UTC (${prepare.window.cadence}, ${exchange} ${type})`;

  const renderBoard = () => {
    for (const th of $$("#leaderboard th[data-key]")) th.setAttribute("aria-sort", th.dataset.key === ui.sortKey ? ui.sortDir : "none");
    $("#leaderboard tbody").innerHTML = sortRows(ui.rows, ui.sortKey, ui.sortDir).map(leaderboardRow).join("") || `<tr><td colspan="${LEADERBOARD_COLUMNS.length + 1}" class="muted">no finished runs yet</td></tr>`;
  };

  const drawOverlay = async () => {
    const retained = ui.rows.filter((r) => r.equityCurve).slice(0, OVERLAY_LIMIT);
    if (!retained.length) { $("#trial-chart").textContent = "No trial kept its equity curve (equityCurve.mode)."; return; }
    // One curve that cannot be read (a transient error) is named, not a blank chart: the
    // others are drawn, and the next poll tries the missing one again.
    const failed = [];
    for (const r of retained) {
      if (ui.curves.has(r.runIx)) continue;
      try {
        const { data: curve } = await api("GET", `${base}/runs/${r.runIx}/equityCurve`);
        const [xs, ys] = curveArrays(curve);
        ui.curves.set(r.runIx, { xs, ys, id: r.runIx, label: `run ${r.runIx}: ${params(r.params)}` });
      } catch (err) {
        failed.push(`run ${r.runIx}: ${err.message || err}`);
      }
    }
    if (!shown()) return;
    $("#trial-error").textContent = failed.length ? `curves not shown: ${failed.join("; ")}` : "";
    const series = retained.map((r) => ui.curves.get(r.runIx)).filter(Boolean);
    if (!series.length) return;
    lineChart($("#trial-chart"), { series, highlight: ui.highlight, label: `equity of ${series.length} retained trials` });
    $("#trial-legend").innerHTML = series.map((s, k) => `<li class="${s.id === ui.highlight ? "highlight" : ""}"><span class="swatch s${k % 8}"></span>${esc(s.label)}</li>`).join("");
  };

  const drawFolds = (wf) => {
    $("#walk-forward").hidden = false;
    const times = foldTimes(wf.results, prepare?.window);
    if (times) foldTimeline($("#fold-chart"), times.folds);
    $("#fold-note").textContent = times?.approximate ? "Fold bounds are approximate: this sweep's folds were stored before the service recorded their times, so rows are spread evenly over the prepared window." : "";
    $("#fold-list").innerHTML = foldTable(wf.results, times);
    $("#fold-summary").textContent = `${wf.completedFolds} of ${wf.folds} folds, in-sample ${wf.inSamplePct ?? ""} %` + (wf.paramDrift !== undefined && wf.paramDrift !== null ? `, parameter drift ${fixed(wf.paramDrift, 3)}` : "");
  };

  // Loads overlap (the poll, and one per control change); only the newest may draw, or an
  // older answer arriving last would show a board for controls the user has since changed.
  let newestLoad = 0;
  const load = async () => {
    const mine = ++newestLoad;
    const stale = () => mine !== newestLoad || !shown();
    const query = new URLSearchParams({ order: $("#lb-order").value, ranking: $("#lb-ranking").value });
    if (ui.objective) query.set("objective", ui.objective);
    const { data } = await api("GET", `${base}?${query}`);
    if (stale()) return false;
    if (!ui.objective) { ui.objective = data.objective; $("#lb-objective").value = data.objective; }
    $("#sweep-status").textContent = data.status;
    $("#sweep-status").className = `pill ${data.status}`;
    const p = data.progress;
    $("#sweep-progress").innerHTML = `${p.done} of ${p.total} runs (${p.aborted} aborted)${p.etaSeconds ? `, about ${p.etaSeconds} s left` : ""} ${bar(p.done, p.total)}`;
    ui.rows = data.leaderboard;
    ui.strategyId = data.strategyId;
    ui.baseConfig = data.baseConfig;
    if (!$("#sweep-name").textContent && data.strategyId) {
      const name = await api("GET", `/strategy/${data.strategyId}`).then((r) => r.data.name, () => null);
      $("#sweep-name").textContent = `of ${name || data.strategyId}`;
    }
    renderBoard();
    // The select shows the ranking the service applied: a sweep that can only be ranked raw
    // (not a full grid, or walk-forward) says so in the select too, not only in the note.
    const plateau = $("#lb-ranking option[value=plateau]");
    const plateauRefused = data.order === "ranked" && data.ranking === "raw" && query.get("ranking") === "plateau";
    if (plateauRefused) { plateau.disabled = true; plateau.textContent = "plateau (needs a full grid)"; }
    if (data.ranking) $("#lb-ranking").value = data.ranking;
    $("#leaderboard-note").textContent = (data.order === "ranked" ? `ranked order, ${data.ranking} ranking by ${data.objective}` : `natural order (run index), objective ${data.objective}`) + (plateau.disabled ? ` (this sweep can only be ranked ${data.ranking}: plateau needs a full grid)` : "") + (data.truncated ? `; the first ${data.leaderboard.length} of ${data.leaderboardSize} rows` : "");
    $("#pbo").textContent = data.pbo !== undefined && data.pbo !== null ? `PBO of this sweep: ${fixed(data.pbo * 100, 1)} % (${data.pboSplits} splits)` : "";
    if (data.walkForward && data.walkForward.results.length) drawFolds(data.walkForward);
    const { data: sens } = await api("GET", `${base}/sensitivity?objective=${encodeURIComponent(data.objective)}`);
    if (stale()) return false;
    renderMarginals(sens);
    renderHeatmaps(sens);
    ui.finished = data.status !== "RUNNING" && p.pendingShards === 0;
    if (ui.finished) await drawOverlay();
    return ui.finished && !$("#trial-error").textContent;
  };
  const reload = async () => {
    $("#leaderboard-error").textContent = "";
    try { await load(); } catch (err) { showError("#leaderboard-error", err); }
  };

  $("#cancel-sweep").addEventListener("click", async () => {
    try {
      const { data } = await api("DELETE", base);
      // A finished sweep keeps its status and says so in the message.
      toast(data?.message ?? "cancelling");
    } catch (err) { showError("#sweep-error", err); }
  });
  $("#lb-order").addEventListener("change", reload);
  $("#lb-ranking").addEventListener("change", reload);
  $("#lb-objective").addEventListener("change", () => { ui.objective = $("#lb-objective").value; reload(); });
  $("#leaderboard thead").addEventListener("click", (e) => {
    const th = e.target.closest("th[data-key]");
    if (!th) return;
    if (ui.sortKey === th.dataset.key) ui.sortDir = ui.sortDir === "ascending" ? "descending" : "ascending";
    else { ui.sortKey = th.dataset.key; ui.sortDir = "ascending"; }
    renderBoard();
  });
  $("#leaderboard tbody").addEventListener("click", async (e) => {
    const tr = e.target.closest("tr[data-run]");
    if (!tr) return;
    const row = ui.rows.find((r) => String(r.runIx) === tr.dataset.run);
    if (e.target.closest(".rerun")) {
      try { await rerunRow(exchange, type, request, ui.strategyId, row, ui.baseConfig); } catch (err) { showError("#leaderboard-error", err); }
      return;
    }
    if (!row || !row.equityCurve) return;
    ui.highlight = row.runIx;
    try { await drawOverlay(); } catch (err) { showError("#trial-error", err); }
  });

  await poll(async () => {
    try {
      return { done: await load() };
    } catch (err) {
      showError("#leaderboard-error", err);
      return { done: err.status === 401 };
    }
  }, { every: 1500, alive: shown, limit: 900 });
}

// "Re-run this row": the row's parameters as one backtest on the same prepared data, with its
// signals stored, then its result page.
async function rerunRow(exchange, type, request, strategyId, row, baseConfig) {
  if (!strategyId) throw new Error("the sweep result names no strategy: re-run it from the Backtests form");
  const body = { prepareJobId: request, strategyId, params: row.params, storeSignals: true };
  if (baseConfig) body.baseConfig = baseConfig;
  const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/execute`, body);
  location.hash = `#/result/${exchange}/${type}/${data.jobId}`;
}

register(/^#\/sweep\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/, sweepView);
