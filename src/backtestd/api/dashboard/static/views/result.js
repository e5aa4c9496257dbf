// The backtest result page: formatted metrics, the run's strategy, parameters and settings,
// equity and drawdown charts zoomed together, the stored signals as a table (with a CSV
// download) and as buy/sell markers on the traded price over the whole run. The signals come
// from GET .../execute/{id}/signals (CSV) and the price from the hourly downloads with
// format=csv: public /v1 calls only, the page parses no binary format.
import { api, fetchText, hourPath, showError } from "../lib/api.js";
import { drawdownPercent, lineChart } from "../lib/charts.js";
import { downloadText, parseCsv, priceSeries } from "../lib/csv.js";
import { $, esc, tableWrap, view } from "../lib/dom.js";
import { fixed, isoUtc, percent, ratioPercent } from "../lib/format.js";
import { TERMINAL, poll, whileShown } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";
import { windowLabel } from "./jobs.js";

const SIGNAL_ROWS_SHOWN = 500;
const PRICE_HOURS_MAX = 168;
const PRICE_FETCHES_AT_ONCE = 4;

// [wire name, label, how to show it]; `quote` is the instrument's quote currency.
const METRICS = [
  ["pnlTotal", "PnL", (v, quote) => `${fixed(v, 2)} ${quote}`],
  ["pnlTotalPercent", "PnL %", (v) => percent(v)],
  ["totalTrades", "Trades", (v) => String(v)],
  ["winRate", "Win rate", (v) => ratioPercent(v)],
  ["sharpeRatio", "Sharpe", (v) => fixed(v, 2)],
  ["sortinoRatio", "Sortino", (v) => fixed(v, 2)],
  ["cagr", "CAGR", (v) => ratioPercent(v)],
  ["maxDrawdown", "Max drawdown", (v, quote) => `${fixed(v, 2)} ${quote}`],
  ["maxDrawdownPercent", "Max drawdown %", (v) => percent(v)],
];

// The metrics' rows (a <tr> each, value in data-value) of `values`, those it has, in order.
// The paper accounts of a live run show their KPIs through this too (same names and units).
export function metricRows(values, quote) {
  return METRICS.filter(([k]) => values[k] !== undefined)
    .map(([k, label, show]) => `<tr><th>${label}</th><td data-metric="${k}" data-value="${esc(values[k])}">${esc(show(values[k], quote))}</td></tr>`).join("");
}

function curveArrays(curve) {
  if (curve.points) return [curve.points.map((p) => p.timestamp), curve.points.map((p) => p.equity)];
  return [curve.timestamps, curve.equities];
}
export { curveArrays };

// The hours [from, to] touches, at most PRICE_HOURS_MAX, each as its CSV's price series,
// fetched a few at a time and joined in order.
async function pricesBetween(exchange, kind, instrument, from, to) {
  const hours = [];
  for (let t = Math.floor(from / 3600e3) * 3600e3; t < to && hours.length < PRICE_HOURS_MAX; t += 3600e3) hours.push(t);
  const parts = new Array(hours.length);
  let next = 0;
  const worker = async () => {
    while (next < hours.length) {
      const k = next++;
      parts[k] = priceSeries(await fetchText(hourPath(exchange, kind, instrument, new Date(hours[k]).toISOString().slice(0, 13), "csv")));
    }
  };
  await Promise.all(Array.from({ length: PRICE_FETCHES_AT_ONCE }, worker));
  const xs = [], ys = [];
  for (const [hx, hy] of parts) for (let i = 0; i < hx.length; i++) if (hx[i] >= from && hx[i] <= to) { xs.push(hx[i]); ys.push(hy[i]); }
  const capped = hours.length === PRICE_HOURS_MAX && hours[hours.length - 1] + 3600e3 < to;
  return { xs, ys, hours: hours.length, capped };
}

function paramsTable(job, declared) {
  const given = job?.params || {};
  const rows = declared.map((p) => {
    const set = Object.hasOwn(given, p.name);
    return `<tr><td><code>${esc(p.name)}</code></td><td data-param="${esc(p.name)}">${esc(set ? given[p.name] : p.defaultValue ?? "")}</td><td class="muted">${set ? "set for this run" : "default"}</td></tr>`;
  });
  for (const [k, v] of Object.entries(given)) if (!declared.some((p) => p.name === k)) rows.push(`<tr><td><code>${esc(k)}</code></td><td data-param="${esc(k)}">${esc(v)}</td><td class="muted">set for this run</td></tr>`);
  return rows.join("") || '<tr><td colspan="3" class="muted">the strategy declares no properties</td></tr>';
}

function configRows(job) {
  const c = job?.baseConfig;
  if (!c) return "";
  const fee = c.buyFeeRate === c.sellFeeRate ? ratioPercent(c.buyFeeRate, 3) : `buy ${ratioPercent(c.buyFeeRate, 3)}, sell ${ratioPercent(c.sellFeeRate, 3)}`;
  return `<tr><th>Initial funding</th><td id="initial-funding">${esc(fixed(c.initialFunding, 2))}</td></tr>
    <tr><th>Fee rate</th><td id="fee-rate">${esc(fee)} (on the ${esc((c.feeLeg || "RECEIVED").toLowerCase())} leg)</td></tr>
    ${c.percentAmountToLock != null ? `<tr><th>Amount locked per entry</th><td>${esc(percent(c.percentAmountToLock, 1))}</td></tr>` : ""}`;
}

async function resultView(exchange, type, id) {
  const shown = stillShown();
  view().innerHTML = `<section class="card"><h2>Backtest</h2><p id="result-status">waiting for the result…</p></section>`;
  const root = view().firstElementChild;
  const path = `/backtest/${encodeURIComponent(exchange)}/${type}/execute/${id}`;
  const body = await poll(async () => {
    const response = await api("GET", path);
    const done = response.status === 200 && TERMINAL.includes(response.data.state.status);
    return { done, value: response.data };
  }, { alive: whileShown(root) });
  if (!body) return;
  const job = await api("GET", `/backtest/jobs/${id}`).then((r) => r.data, () => null);
  const strategyId = job?.strategyId;
  const declared = strategyId ? await api("GET", `/strategy/${strategyId}`).then((r) => r.data.declaredProperties || [], () => []) : [];
  const r = body.results;
  const quote = String(r.instrument || "").split("/")[1]?.split(":")[0] || "";
  const metrics = metricRows(r, quote);
  const stored = r.signalsUpload === "Done";
  const name = job?.strategyName || strategyId || r.strategyId;
  view(shown).innerHTML = `<section class="card"><h2>Backtest of <span id="result-strategy">${esc(name)}</span> <span class="pill ${esc(body.state.status)}" id="result-state">${esc(body.state.status)}</span></h2>
    ${body.state.statusDetail ? `<p class="error">${esc(body.state.statusDetail)}</p>` : ""}
    <div class="columns">
      <div><h3>Metrics</h3>${tableWrap(`<table id="metrics"><tbody>${metrics || '<tr><td colspan="2" class="muted">no trades: no metrics</td></tr>'}</tbody></table>`)}</div>
      <div><h3>Run</h3>${tableWrap(`<table id="run"><tbody>
        <tr><th>Strategy</th><td>${strategyId ? `<a href="#/strategy/${esc(strategyId)}">${esc(name)}</a>` : esc(name)}</td></tr>
        <tr><th>Instrument</th><td>${esc(r.instrument)} on ${esc(exchange)} (${esc(type)})</td></tr>
        ${job?.window ? `<tr><th>Window</th><td id="run-window">${esc(windowLabel(job.window))}</td></tr>` : ""}
        ${configRows(job)}
        <tr><th>Job</th><td><code class="id">${esc(id)}</code></td></tr>
        <tr><th>Finished</th><td>${esc(isoUtc(body.state.endTime))} UTC</td></tr>
      </tbody></table>`)}
      <h3>Parameters</h3>${tableWrap(`<table id="run-params"><thead><tr><th>Property</th><th>Value</th><th></th></tr></thead><tbody>${paramsTable(job, declared)}</tbody></table>`)}</div>
    </div></section>
    <section class="card"><h2>Equity</h2><div id="equity-chart"></div><p class="muted">Drag to zoom (the drawdown follows), double click to reset.</p></section>
    <section class="card"><h2>Drawdown %</h2><div id="drawdown-chart"></div><p class="muted">From the equity curve's points above. The max drawdown metric is taken on the equity at every instant (open positions marked to market), so it can be deeper than this chart.</p></section>
    <section class="card"><h2>Price and signals</h2><div id="price-chart" class="muted">${stored ? "loading the price…" : "Execute with “Store signals” to see the buy and sell markers here."}</div>
      <p id="price-note" class="muted"></p><p class="error" id="price-error" role="alert"></p></section>
    <section class="card"><h2>Signals</h2>
      ${stored ? `<p><button type="button" id="signals-csv">Download CSV</button> ${r.signalsUrl ? `<a href="${esc(r.signalsUrl)}">Download parquet</a>` : ""} <span class="muted"><span id="signal-count">${esc(r.signalCount)}</span> signals</span></p>
        <div class="scroll" tabindex="0" role="region" aria-label="stored signals"><table id="signals-table"><thead><tr><th>Time (UTC)</th><th>Side</th><th>Price</th><th>Info</th></tr></thead><tbody></tbody></table></div><p id="signals-note" class="muted"></p>`
      : `<p class="muted">${r.signalsUpload ? `No signals stored (${esc(r.signalsUpload)}${r.signalsUploadReason ? `: ${esc(r.signalsUploadReason)}` : ""}).` : "No signals stored: this execution ran without storeSignals."}</p>`}
      <p class="error" id="signals-error" role="alert"></p></section>`;
  let range = null;
  if (r.equityCurve) {
    const [xs, ys] = curveArrays(r.equityCurve);
    let drawdown = null;
    lineChart($("#equity-chart"), { xs, ys, label: "equity curve", onZoom: (z) => (z ? drawdown.zoom(z[0], z[1]) : drawdown.reset()) });
    drawdown = lineChart($("#drawdown-chart"), { xs, ys: drawdownPercent(ys), area: true, unit: " %", label: "drawdown percent" });
    if (xs.length) range = [xs[0], xs[xs.length - 1]];
  }
  if (job?.window) range = [Date.parse(job.window.from), Date.parse(job.window.to)];
  if (!stored) return;
  let signals;
  try {
    const text = await fetchText(`${path}/signals`);
    signals = parseCsv(text);
    $("#signals-csv").addEventListener("click", () => downloadText(text, `signals_${id}.csv`));
    const [ts, side, price, info] = ["ts", "side", "price", "info"].map((c) => signals.columns.indexOf(c));
    $("#signals-table tbody").innerHTML = signals.rows.slice(0, SIGNAL_ROWS_SHOWN).map((row) => `<tr><td class="nowrap">${esc(new Date(Number(row[ts])).toISOString().replace("T", " ").slice(0, 23))}</td><td class="${Number(row[side]) > 0 ? "buy" : "sell"}">${Number(row[side]) > 0 ? "buy" : "sell"}</td><td>${esc(row[price])}</td><td>${esc(row[info] ?? "")}</td></tr>`).join("") || '<tr><td colspan="4" class="muted">the strategy emitted no signals</td></tr>';
    if (signals.rows.length > SIGNAL_ROWS_SHOWN) $("#signals-note").textContent = `The first ${SIGNAL_ROWS_SHOWN} of ${signals.rows.length} signals; the CSV has them all.`;
  } catch (err) { showError("#signals-error", err); return; }
  if (type === "user") { $("#price-chart").textContent = "The price of a user dataset is not served by the hourly downloads; see the dataset's preview."; return; }
  try {
    const [ts, side, price] = ["ts", "side", "price"].map((c) => signals.columns.indexOf(c));
    const markers = signals.rows.map((row) => ({ x: Number(row[ts]), y: Number(row[price]), side: Number(row[side]) }));
    const from = range ? range[0] : Math.min(...markers.map((m) => m.x)), to = range ? range[1] : Math.max(...markers.map((m) => m.x));
    const kind = type === "kline" ? "klines" : "tickers";
    const prices = await pricesBetween(exchange, kind, r.instrument, from, to);
    if (!prices.xs.length) { $("#price-chart").textContent = "No prices in the backtest's window."; return; }
    lineChart($("#price-chart"), { xs: prices.xs, ys: prices.ys, markers, label: `price of ${r.instrument} with buy and sell markers` });
    $("#price-note").textContent = `${r.instrument} ${kind === "klines" ? "kline close" : "last trade"} price over ${prices.hours} hours; green dots buy, red dots sell. Drag to zoom, double click to reset.` + (prices.capped ? ` Only the first ${PRICE_HOURS_MAX} hours of the run are drawn.` : "");
  } catch (err) { showError("#price-error", err); }
}

register(/^#\/result\/([^/]+)\/([^/]+)\/([^/]+)$/, resultView);
