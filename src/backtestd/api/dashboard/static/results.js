// The backtest result page: metrics, equity and drawdown charts, the stored signals as a table
// (with a CSV download) and as buy/sell markers on the traded price. The signals come from
// GET .../execute/{id}/signals (CSV) and the price from the hourly downloads with format=csv:
// both public /v1 calls, the page parses no binary format. Loaded after app.js.
"use strict";

const METRIC_LABELS = [["pnlTotal", "PnL"], ["pnlTotalPercent", "PnL %"], ["totalTrades", "Trades"], ["winRate", "Win rate"], ["sharpeRatio", "Sharpe"], ["sortinoRatio", "Sortino"], ["cagr", "CAGR"], ["maxDrawdown", "Max drawdown"], ["maxDrawdownPercent", "Max drawdown %"]];
const SIGNAL_ROWS_SHOWN = 500;
const PRICE_HOURS_MAX = 24;

// A CSV text (a header line, no quoted newlines) as {columns, rows}.
function parseCsv(text) {
  const lines = text.split("\n").filter((l) => l.length);
  const columns = (lines.shift() || "").split(",");
  const rows = lines.map((line) => {
    const out = [];
    let cur = "", quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
      } else if (c === '"') quoted = true;
      else if (c === ",") { out.push(cur); cur = ""; } else cur += c;
    }
    out.push(cur);
    return out;
  });
  return { columns, rows };
}

function downloadText(text, filename) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function fetchText(path) {
  return (await api("GET", path, undefined, { asText: true })).data;
}

// The download path of one hour of an instrument ("BTC/USDT" or "BTC/USDT:USDT").
function hourPath(exchange, kind, instrument, hour, format) {
  const [base, quote] = instrument.split("/");
  return `/exchange/${encodeURIComponent(exchange)}/${kind}/${encodeURIComponent(base)}/${encodeURIComponent(quote)}?hour=${hour}&format=${format}`;
}

const hourText = (ms) => new Date(ms).toISOString().slice(0, 13);

// One hour's price series from its CSV: tickers' last trade price or klines' close.
function priceSeries(csvText) {
  const { columns, rows } = parseCsv(csvText);
  const ts = columns.indexOf("ts"), px = columns.indexOf(columns.includes("last") ? "last" : "close");
  return [rows.map((r) => Number(r[ts])), rows.map((r) => Number(r[px]))];
}

async function pricesBetween(exchange, kind, instrument, from, to) {
  const hours = [];
  for (let t = Math.floor(from / 3600e3) * 3600e3; t <= to && hours.length < PRICE_HOURS_MAX; t += 3600e3) hours.push(t);
  const xs = [], ys = [];
  for (const h of hours) {
    const [hx, hy] = priceSeries(await fetchText(hourPath(exchange, kind, instrument, hourText(h), "csv")));
    for (let i = 0; i < hx.length; i++) if (hx[i] >= from && hx[i] <= to) { xs.push(hx[i]); ys.push(hy[i]); }
  }
  return { xs, ys, hours: hours.length, capped: hours.length === PRICE_HOURS_MAX && hours[hours.length - 1] + 3600e3 <= to };
}

async function resultView(exchange, type, id) {
  view().innerHTML = `<section class="card"><h2>Backtest ${esc(id)}</h2><p id="result-status">waiting for the result…</p></section>`;
  const root = view().firstElementChild;
  const path = `/backtest/${encodeURIComponent(exchange)}/${type}/execute/${id}`;
  let body;
  for (let i = 0; i < 600 && document.body.contains(root); i++) {
    const response = await api("GET", path);
    if (response.status === 200 && ["Completed", "Failed", "Aborted"].includes(response.data.state.status)) { body = response.data; break; }
    await sleep(1000);
  }
  if (!body) return;
  const r = body.results;
  const metrics = METRIC_LABELS.filter(([k]) => r[k] !== undefined).map(([k, label]) => `<tr><th>${label}</th><td data-metric="${k}">${esc(r[k])}</td></tr>`).join("");
  const stored = r.signalsUpload === "Done";
  view().innerHTML = `<section class="card"><h2>Backtest ${esc(id)} <span class="pill ${esc(body.state.status)}" id="result-state">${esc(body.state.status)}</span></h2>
    ${body.state.statusDetail ? `<p class="error">${esc(body.state.statusDetail)}</p>` : ""}
    <table id="metrics"><tbody><tr><th>Strategy</th><td>${esc(r.strategyId)}</td></tr><tr><th>Instrument</th><td>${esc(r.instrument)}</td></tr>${metrics || '<tr><td colspan="2" class="muted">no trades</td></tr>'}</tbody></table></section>
    <section class="card"><h2>Equity</h2><div id="equity-chart"></div><p class="muted">Drag to zoom, double click to reset.</p></section>
    <section class="card"><h2>Drawdown %</h2><div id="drawdown-chart"></div></section>
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
    Charts.lineChart($("#equity-chart"), { xs, ys, label: "equity curve" });
    Charts.lineChart($("#drawdown-chart"), { xs, ys: Charts.drawdownPercent(ys), area: true, label: "drawdown percent" });
    if (xs.length) range = [xs[0], xs[xs.length - 1]];
  }
  if (!stored) return;
  let signals;
  try {
    const text = await fetchText(`${path}/signals`);
    signals = parseCsv(text);
    $("#signals-csv").addEventListener("click", () => downloadText(text, `signals_${id}.csv`));
    const [ts, side, price, info] = ["ts", "side", "price", "info"].map((c) => signals.columns.indexOf(c));
    $("#signals-table tbody").innerHTML = signals.rows.slice(0, SIGNAL_ROWS_SHOWN).map((row) => `<tr><td>${esc(new Date(Number(row[ts])).toISOString().replace("T", " ").slice(0, 23))}</td><td class="${Number(row[side]) > 0 ? "buy" : "sell"}">${Number(row[side]) > 0 ? "buy" : "sell"}</td><td>${esc(row[price])}</td><td>${esc(row[info] ?? "")}</td></tr>`).join("") || '<tr><td colspan="4" class="muted">the strategy emitted no signals</td></tr>';
    if (signals.rows.length > SIGNAL_ROWS_SHOWN) $("#signals-note").textContent = `The first ${SIGNAL_ROWS_SHOWN} of ${signals.rows.length} signals; the CSV has them all.`;
  } catch (err) { showError("#signals-error", err); return; }
  if (type === "user") { $("#price-chart").textContent = "The price of a user dataset is not served by the hourly downloads; see the dataset's preview."; return; }
  try {
    const [ts, side, price] = ["ts", "side", "price"].map((c) => signals.columns.indexOf(c));
    const markers = signals.rows.map((row) => ({ x: Number(row[ts]), y: Number(row[price]), side: Number(row[side]) }));
    const from = range ? range[0] : Math.min(...markers.map((m) => m.x)), to = range ? range[1] : Math.max(...markers.map((m) => m.x));
    const prices = await pricesBetween(exchange, type === "kline" ? "klines" : "tickers", r.instrument, from, to);
    if (!prices.xs.length) { $("#price-chart").textContent = "No prices in the backtest's window."; return; }
    Charts.lineChart($("#price-chart"), { xs: prices.xs, ys: prices.ys, markers, label: `price of ${r.instrument} with buy and sell markers` });
    $("#price-note").textContent = `${r.instrument} ${type === "kline" ? "kline close" : "last trade"} price over ${prices.hours} hours; green dots buy, red dots sell.` + (prices.capped ? ` Only the first ${PRICE_HOURS_MAX} hours are drawn.` : "");
  } catch (err) { showError("#price-error", err); }
}

ROUTES.push([/^#\/result\/([^/]+)\/([^/]+)\/([^/]+)$/, resultView]);
