// Sweeps: the submit form (axes built from the strategy's declared properties), live progress,
// the leaderboard (sortable, ranked/natural, plateau/raw, objective; DSR and PBO explained),
// every sensitivity marginal and one heatmap per axis pair, walk-forward folds, the retained
// trials' equity curves overlaid, and "re-run this row". Loaded after app.js (its helpers).
"use strict";

const OBJECTIVES = ["sharpe", "sortino", "pnl", "maxdd"];
const LEADERBOARD_COLUMNS = [
  ["rank", "#"], ["runIx", "Run"], ["params", "Params"], ["sharpe", "Sharpe"], ["sortino", "Sortino"],
  ["plateauScore", "Plateau"], ["pnlPct", "PnL %"], ["maxDdPct", "Max DD %"], ["trades", "Trades"], ["deflatedSharpe", "DSR"],
];
const OVERLAY_LIMIT = 20;
const fmt3 = (v) => (v === undefined || v === null ? "" : Number(v).toFixed(3));

// ---------------------------------------------------------------- the form

function axisRows(props) {
  if (!props.length) return '<tr><td colspan="5" class="muted">this strategy declares no properties: give the axes as JSON below</td></tr>';
  return props.map((p) => {
    const ranged = p.min != null && p.max != null && p.step != null;
    const def = p.defaultValue ?? "";
    const numeric = def === "" || !Number.isNaN(Number(def));
    const n = esc(p.name);
    const from = ranged ? p.min : def, to = ranged ? p.max : def, step = ranged ? p.step : 1;
    return `<tr data-param="${n}">
      <td><input type="checkbox" class="axis-on" aria-label="sweep ${n}" ${ranged ? "checked" : ""} ${numeric ? "" : "disabled"}></td>
      <td><code>${n}</code> <span class="muted">${esc(p.description || "")}${def !== "" ? ` (default ${esc(def)})` : ""}${ranged ? ` · declared ${esc(p.min)} to ${esc(p.max)} step ${esc(p.step)}` : ""}</span></td>
      <td><input class="axis-from" type="number" step="any" aria-label="${n} from" value="${esc(from)}"></td>
      <td><input class="axis-to" type="number" step="any" aria-label="${n} to" value="${esc(to)}"></td>
      <td><input class="axis-step" type="number" step="any" min="0" aria-label="${n} step" value="${esc(step)}"></td></tr>`;
  }).join("");
}

function axesFromForm(form) {
  const json = form.axes.value.trim();
  if (json) return JSON.parse(json);
  const axes = {};
  for (const tr of form.querySelectorAll("#axis-table tbody tr[data-param]")) {
    if (!tr.querySelector(".axis-on").checked) continue;
    const num = (cls) => Number(tr.querySelector(cls).value);
    axes[tr.dataset.param] = { from: num(".axis-from"), to: num(".axis-to"), step: num(".axis-step") };
  }
  if (!Object.keys(axes).length) throw new Error("tick at least one property to sweep, or give the axes as JSON");
  return axes;
}

function gridSize(axes) {
  let n = 1;
  for (const a of Object.values(axes)) {
    if (a.values) n *= a.values.length;
    else n *= a.step > 0 && a.to >= a.from ? Math.floor((a.to - a.from) / a.step + 1e-9) + 1 : 0;
  }
  return n;
}

async function sweepsView() {
  const { data: strategies } = await api("GET", "/strategies");
  const prepares = store.jobs("prepares"), sweeps = store.jobs("sweeps");
  view().innerHTML = `
    <section class="card"><h2>Run a sweep</h2><form id="sweep-form"><div class="row">
      <div><label>Prepared data</label><select name="prepare">${prepares.map((p) => `<option value="${esc(p.id)}|${esc(p.exchange)}|${esc(p.type)}">${esc(p.label)}</option>`).join("")}</select></div>
      <div><label>Strategy</label><select name="strategy">${strategies.strategies.map((s) => `<option>${esc(s.strategyId)}</option>`).join("")}</select></div>
      <div><label>Sampler</label><select name="sampler"><option>grid</option><option>random</option><option>lhs</option></select></div>
      <div><label>Samples</label><input name="samples" type="number" min="1"></div>
      <div><label>Objective</label><select name="objective">${OBJECTIVES.map((o) => `<option>${o}</option>`).join("")}</select></div>
      <div><label>Walk-forward folds</label><input name="folds" type="number" min="0" placeholder="none"></div>
      </div>
      <h3>Axes</h3><p class="muted">One row per property the strategy declares, pre-filled with its declared minimum, maximum and step; tick the ones to sweep (the others keep their defaults).</p>
      <table id="axis-table"><thead><tr><th>Sweep</th><th>Property</th><th>From</th><th>To</th><th>Step</th></tr></thead><tbody><tr><td colspan="5" class="muted">choose a strategy</td></tr></tbody></table>
      <p id="grid-size" class="muted" role="status"></p>
      <details><summary>Advanced: axes as JSON</summary>
        <label>Axes (JSON; when filled, replaces the rows above)</label><input name="axes" style="max-width:none" placeholder='{"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}'>
      </details>
      <p><button type="submit">Submit sweep</button></p><p class="error" id="sweep-error" role="alert"></p></form></section>
    <section class="card"><h2>Sweeps of this tab</h2><ul>${sweeps.map((s) => `<li><a href="#/sweep/${esc(s.exchange)}/${esc(s.type)}/${esc(s.request)}/${esc(s.id)}">${esc(s.id)}</a> ${esc(s.label)}</li>`).join("") || '<li class="muted">none yet</li>'}</ul></section>`;
  const form = $("#sweep-form");
  const showSize = () => {
    try { $("#grid-size").textContent = `${gridSize(axesFromForm(form))} combinations on the full grid`; } catch (_) { $("#grid-size").textContent = ""; }
  };
  const loadAxes = async () => {
    const id = form.strategy.value;
    if (!id) return;
    try {
      const { data } = await api("GET", `/strategy/${encodeURIComponent(id)}`);
      $("#axis-table tbody").innerHTML = axisRows(data.declaredProperties || []);
      showSize();
    } catch (err) { showError("#sweep-error", err); }
  };
  form.strategy.addEventListener("change", loadAxes);
  form.addEventListener("input", showSize);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const [request, exchange, type] = String(f.get("prepare")).split("|");
    try {
      const sweep = { params: axesFromForm(form), sampler: f.get("sampler"), objective: f.get("objective") };
      if (f.get("samples")) sweep.samples = Number(f.get("samples"));
      const body = { strategyId: f.get("strategy"), sweep };
      if (Number(f.get("folds")) > 0) body.walkForward = { folds: Number(f.get("folds")) };
      const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/executeSweep/${request}`, body);
      store.addJob("sweeps", { id: data.sweepId, exchange, type, request, strategyId: body.strategyId, label: `${f.get("strategy")} · ${data.totalRuns} runs` });
      location.hash = `#/sweep/${exchange}/${type}/${request}/${data.sweepId}`;
    } catch (err) { showError("#sweep-error", err); }
  });
  await loadAxes();
}

// ---------------------------------------------------------------- one sweep

function sortRows(rows, key, dir) {
  if (!key) return rows;
  const value = (r) => (key === "params" ? JSON.stringify(r.params) : r[key]);
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
    if (k === "params") return `<td><code>${esc(JSON.stringify(r.params))}</code></td>`;
    if (k === "trades") return `<td>${r.trades}${r.aborted ? " (aborted)" : ""}</td>`;
    if (k === "rank" || k === "runIx") return `<td>${r[k] ?? ""}</td>`;
    return `<td data-col="${k}">${fmt3(r[k])}</td>`;
  }).join("");
  const curve = r.equityCurve ? `<button type="button" class="secondary show-curve" data-run="${r.runIx}">Highlight curve</button> ` : "";
  return `<tr class="${r.equityCurve ? "clickable" : ""}" data-run="${r.runIx}">${cells}<td class="actions">${curve}<button type="button" class="secondary rerun" data-run="${r.runIx}">Re-run</button></td></tr>`;
}

function renderMarginals(sens) {
  $("#marginals").innerHTML = sens.marginals.map((m) => `<figure class="marginal" data-param="${esc(m.param)}">
      <figcaption><code>${esc(m.param)}</code>: ${esc(sens.objective)} by value (best, mean and worst over the other axes)</figcaption>
      <div class="marginal-chart"></div>
      <table><thead><tr><th>${esc(m.param)}</th><th>Runs</th><th>Best</th><th>Mean</th><th>Worst</th></tr></thead><tbody>
      ${m.points.map((p) => `<tr><td>${esc(p.value)}</td><td>${p.count}</td><td>${fmt3(p.best)}</td><td>${fmt3(p.mean)}</td><td>${fmt3(p.worst)}</td></tr>`).join("")}
      </tbody></table></figure>`).join("") || '<p class="muted">no finished runs yet</p>';
  sens.marginals.forEach((m, i) => Charts.marginalChart($("#marginals").querySelectorAll(".marginal-chart")[i], m));
}

function renderHeatmaps(sens) {
  const box = $("#heatmaps");
  box.innerHTML = sens.heatmaps.map((h) => `<figure class="heatmap-figure" data-pair="${esc(h.paramA)}|${esc(h.paramB)}"><figcaption><code>${esc(h.paramA)}</code> × <code>${esc(h.paramB)}</code>: mean ${esc(sens.objective)}</figcaption><div></div></figure>`).join("");
  box.querySelectorAll(".heatmap-figure > div").forEach((div, i) => Charts.heatmap(div, sens.heatmaps[i], "mean"));
  if (!sens.heatmaps.length) box.innerHTML = `<p class="muted">${sens.marginals.length < 2 ? "one axis: no pairs to map (see its marginal above)" : "no finished runs yet"}</p>`;
  $("#heatmaps-note").textContent = sens.heatmapsTruncated ? "Only the first axis pairs are mapped (heatmapsTruncated): the sweep has more pairs than the service maps." : "";
}

async function sweepView(exchange, type, request, id) {
  const base = `/backtest/${encodeURIComponent(exchange)}/${type}/executeSweep/${request}/${id}`;
  const known = store.jobs("sweeps").find((s) => s.id === id) || {};
  view().innerHTML = `<section class="card"><h2>Sweep ${esc(id)} <span class="pill" id="sweep-status"></span></h2>
      <div id="sweep-progress"></div><p><button class="danger" id="cancel-sweep">Cancel</button></p><p class="error" id="sweep-error" role="alert"></p></section>
    <section class="card"><h2>Leaderboard</h2>
      <div class="row">
        <div><label>Order</label><select id="lb-order"><option value="ranked">ranked</option><option value="natural">natural (run order)</option></select></div>
        <div><label>Ranking</label><select id="lb-ranking"><option value="plateau">plateau (mean of the neighbourhood)</option><option value="raw">raw (the run's own value)</option></select></div>
        <div><label>Objective</label><select id="lb-objective">${OBJECTIVES.map((o) => `<option>${o}</option>`).join("")}</select></div>
      </div>
      <table id="leaderboard"><thead><tr>${LEADERBOARD_COLUMNS.map(([k, label]) => `<th aria-sort="none" data-key="${k}"><button type="button" class="sort">${label}</button></th>`).join("")}<th>Actions</th></tr></thead><tbody></tbody></table>
      <p id="leaderboard-note" class="muted"></p>
      <p class="muted" id="dsr-help"><strong>DSR</strong> (deflated Sharpe ratio): the probability that the run's true Sharpe ratio is above zero once the number of trials tried and the returns' skew and fat tails are accounted for; near 1 is convincing, near 0 is what luck alone would give.</p>
      <p class="muted" id="pbo-help"><strong>PBO</strong> (probability of backtest overfitting): how often the configuration that is best on one half of the period ranks below the median on the other half; above 50 % the choice is likely overfit.</p>
      <p id="pbo"></p>
      <p class="error" id="leaderboard-error" role="alert"></p></section>
    <section class="card"><h2>Sensitivity</h2><div id="marginals"></div></section>
    <section class="card"><h2>Heatmaps</h2><div id="heatmaps"></div><p id="heatmaps-note" class="muted"></p></section>
    <section class="card"><h2>Equity of the retained trials</h2><div id="trial-chart" class="muted">The curves appear when the sweep has finished.</div><ul id="trial-legend" class="legend"></ul><p class="error" id="trial-error" role="alert"></p></section>
    <section class="card" id="walk-forward" hidden><h2>Walk-forward folds</h2><div id="fold-chart"></div><p id="fold-summary" class="muted"></p></section>`;
  const root = $("#leaderboard");
  const ui = { sortKey: null, sortDir: "descending", objective: null, rows: [], finished: false, curves: new Map(), highlight: undefined };

  const renderBoard = () => {
    for (const th of document.querySelectorAll("#leaderboard th[data-key]")) th.setAttribute("aria-sort", th.dataset.key === ui.sortKey ? ui.sortDir : "none");
    $("#leaderboard tbody").innerHTML = sortRows(ui.rows, ui.sortKey, ui.sortDir).map(leaderboardRow).join("") || `<tr><td colspan="${LEADERBOARD_COLUMNS.length + 1}" class="muted">no finished runs yet</td></tr>`;
  };

  const drawOverlay = async () => {
    const retained = ui.rows.filter((r) => r.equityCurve).slice(0, OVERLAY_LIMIT);
    if (!retained.length) { $("#trial-chart").textContent = "No trial kept its equity curve (equityCurve.mode)."; return; }
    for (const r of retained) {
      if (ui.curves.has(r.runIx)) continue;
      const { data: curve } = await api("GET", `${base}/runs/${r.runIx}/equityCurve`);
      const [xs, ys] = curveArrays(curve);
      ui.curves.set(r.runIx, { xs, ys, id: r.runIx, label: `run ${r.runIx} ${JSON.stringify(r.params)}` });
    }
    const series = retained.map((r) => ui.curves.get(r.runIx));
    Charts.lineChart($("#trial-chart"), { series, highlight: ui.highlight, label: `equity of ${series.length} retained trials` });
    $("#trial-legend").innerHTML = series.map((s, k) => `<li class="${s.id === ui.highlight ? "highlight" : ""}"><span class="swatch s${k % 8}"></span>${esc(s.label)}</li>`).join("");
  };

  // Loads overlap (the poll, and one per control change); only the newest may draw, or an
  // older answer arriving last would show a board for controls the user has since changed.
  let newestLoad = 0;
  const load = async () => {
    const mine = ++newestLoad;
    const stale = () => mine !== newestLoad;
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
    renderBoard();
    $("#leaderboard-note").textContent = (data.order === "ranked" ? `ranked order, ${data.ranking} ranking by ${data.objective}` : `natural order (run index), objective ${data.objective}`) + (data.ranking !== $("#lb-ranking").value && data.order === "ranked" ? ` (this sweep can only be ranked ${data.ranking}: plateau needs a full grid)` : "") + (data.truncated ? `; the first ${data.leaderboard.length} of ${data.leaderboardSize} rows` : "");
    $("#pbo").textContent = data.pbo !== undefined && data.pbo !== null ? `PBO of this sweep: ${(data.pbo * 100).toFixed(1)} % (${data.pboSplits} splits)` : "";
    if (data.walkForward && data.walkForward.results.length) {
      $("#walk-forward").hidden = false;
      Charts.foldTimeline($("#fold-chart"), data.walkForward.results);
      const wf = data.walkForward;
      $("#fold-summary").textContent = `${wf.completedFolds} of ${wf.folds} folds, in-sample ${wf.inSamplePct ?? ""} %` + (wf.paramDrift !== undefined && wf.paramDrift !== null ? `, parameter drift ${Number(wf.paramDrift).toFixed(3)}` : "");
    }
    const { data: sens } = await api("GET", `${base}/sensitivity?objective=${encodeURIComponent(data.objective)}`);
    if (stale()) return false;
    renderMarginals(sens);
    renderHeatmaps(sens);
    ui.finished = data.status !== "RUNNING" && p.pendingShards === 0;
    if (ui.finished) await drawOverlay();
    return ui.finished;
  };
  const reload = async () => {
    $("#leaderboard-error").textContent = "";
    try { await load(); } catch (err) { showError("#leaderboard-error", err); }
  };

  $("#cancel-sweep").addEventListener("click", async () => {
    try { await api("DELETE", base); toast("cancelling"); } catch (err) { showError("#sweep-error", err); }
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
      try { await rerunRow(exchange, type, request, ui.strategyId || known.strategyId, row, ui.baseConfig); } catch (err) { showError("#leaderboard-error", err); }
      return;
    }
    if (!row || !row.equityCurve) return;
    ui.highlight = row.runIx;
    try { await drawOverlay(); } catch (err) { showError("#trial-error", err); }
  });

  for (let i = 0; i < 900 && document.body.contains(root); i++) {
    try {
      if (await load()) return;
    } catch (err) { showError("#leaderboard-error", err); if (err.status === 401) return; }
    await sleep(1500);
  }
}

// "Re-run this row": the row's parameters as one backtest on the same prepared data, with its
// signals stored, then its result page.
async function rerunRow(exchange, type, request, strategyId, row, baseConfig) {
  if (!strategyId) throw new Error("the sweep result names no strategy: re-run it from the Backtests form");
  const body = { prepareJobId: request, strategyId, params: row.params, storeSignals: true };
  if (baseConfig) body.baseConfig = baseConfig;
  const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/execute`, body);
  store.addJob("executes", { id: data.jobId, exchange, type, label: `${strategyId} ${JSON.stringify(row.params)} (sweep run ${row.runIx})` });
  location.hash = `#/result/${exchange}/${type}/${data.jobId}`;
}

ROUTES.push([/^#\/sweeps$/, sweepsView], [/^#\/sweep\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/, sweepView]);
