// Sweeps: the submit form (axes built from the strategy's declared properties) and every
// sweep of the account, from the API, wherever it was started.
import { api, listAll, showError, strategyNames } from "../lib/api.js";
import { $, esc, tableWrap, view } from "../lib/dom.js";
import { isoUtc } from "../lib/format.js";
import { register, stillShown } from "../lib/router.js";
import { knowDatasets, preparedOptions, sweepPath, windowLabel } from "./jobs.js";
import { strategyLabel } from "./strategies.js";

export const OBJECTIVES = ["sharpe", "sortino", "pnl", "maxdd"];

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

function sweepRow(s) {
  return `<tr data-id="${esc(s.sweepId)}"><td><a href="${sweepPath(s)}">${esc(s.strategyName || s.strategyId)}</a></td><td>${esc(s.params.join(" × "))}</td>
    <td>${s.totalRuns}${s.folds ? ` (${s.folds} folds)` : ""}</td><td>${esc(s.sampler)} · ${esc(s.objective)}</td><td><span class="pill ${esc(s.status)}">${esc(s.status)}</span></td>
    <td>${esc(windowLabel(s.window))}</td><td class="nowrap">${esc(isoUtc(s.createdAt))}</td></tr>`;
}

async function sweepsView() {
  const shown = stillShown();
  const [strategies, prepares, sweeps, { data: datasets }] = await Promise.all([strategyNames(), listAll("/backtest/jobs?kind=prepare", "jobs", 200), listAll("/backtest/sweeps", "sweeps", 100), api("GET", "/datasets")]);
  knowDatasets(datasets.datasets);
  view(shown).innerHTML = `
    <section class="card"><h2>Run a sweep</h2><form id="sweep-form"><div class="row">
      <div class="wide"><label>Prepared data</label><select name="prepare">${preparedOptions(prepares)}</select></div>
      <div><label>Strategy</label><select name="strategy">${strategies.list.map((s) => `<option value="${esc(s.strategyId)}">${esc(strategyLabel(s.strategyId, s.name))}</option>`).join("")}</select></div>
      <div><label>Sampler</label><select name="sampler"><option>grid</option><option>random</option><option>lhs</option></select></div>
      <div><label>Samples</label><input name="samples" type="number" min="1"></div>
      <div><label>Objective</label><select name="objective">${OBJECTIVES.map((o) => `<option>${o}</option>`).join("")}</select></div>
      <div><label>Walk-forward folds</label><input name="folds" type="number" min="0" placeholder="none"></div>
      </div>
      <h3>Axes</h3><p class="muted">One row per property the strategy declares, pre-filled with its declared minimum, maximum and step; tick the ones to sweep (the others keep their defaults).</p>
      ${tableWrap(`<table id="axis-table"><thead><tr><th>Sweep</th><th>Property</th><th>From</th><th>To</th><th>Step</th></tr></thead><tbody><tr><td colspan="5" class="muted">choose a strategy</td></tr></tbody></table>`)}
      <p id="grid-size" class="muted" role="status"></p>
      <details><summary>Advanced: axes as JSON</summary>
        <label>Axes (JSON; when filled, replaces the rows above)</label><input name="axes" class="full" placeholder='{"fast": {"from": 5, "to": 15, "step": 5}, "slow": {"values": [20, 30]}}'>
      </details>
      <p><button type="submit">Submit sweep</button></p><p class="error" id="sweep-error" role="alert"></p></form></section>
    <section class="card"><h2>Sweeps</h2><p class="muted">Every sweep of your account, newest first, wherever it was started.</p>
      ${tableWrap(`<table id="sweep-list"><thead><tr><th>Strategy</th><th>Axes</th><th>Runs</th><th>Sampler · objective</th><th>Status</th><th>Data</th><th>Created (UTC)</th></tr></thead><tbody>${sweeps.map(sweepRow).join("") || '<tr><td colspan="7" class="muted">none yet</td></tr>'}</tbody></table>`)}</section>`;
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
      if (!request) throw new Error("prepare data first (Backtests page): no completed prepare to sweep on");
      const sweep = { params: axesFromForm(form), sampler: f.get("sampler"), objective: f.get("objective") };
      if (f.get("samples")) sweep.samples = Number(f.get("samples"));
      const body = { strategyId: f.get("strategy"), sweep };
      if (Number(f.get("folds")) > 0) body.walkForward = { folds: Number(f.get("folds")) };
      const { data } = await api("POST", `/backtest/${encodeURIComponent(exchange)}/${type}/executeSweep/${request}`, body);
      location.hash = `#/sweep/${exchange}/${type}/${request}/${data.sweepId}`;
    } catch (err) { showError("#sweep-error", err); }
  });
  await loadAxes();
}

register(/^#\/sweeps$/, sweepsView);
