// A live run's paper trading, on the run's page: one card per paper account (equity, realised
// and unrealised PnL, open positions, per-instrument split, the KPIs as the backtest result
// page shows them) with its equity curve, gaps drawn as gaps. Read from GET /live/{id}/paper
// on every refresh of the run's page; a curve is read again only when its account moved.
import { api, showError } from "../lib/api.js";
import { lineChart } from "../lib/charts.js";
import { $, esc, tableWrap } from "../lib/dom.js";
import { fixed, utcSeconds } from "../lib/format.js";
import { metricRows } from "./result.js";

// The curve's shape: about two points per pixel of the chart (what it can draw at full view),
// extrema and both ends kept by the server's resampler.
const RESAMPLE_MIN = 400;
const RESAMPLE_MAX = 2000;

export const money = (v, currency) => `${fixed(v, 2)} ${currency}`;
// Prices and quantities: enough decimals for their magnitude (a BTC amount, an ETH/BTC price).
export const price = (v) => fixed(v, Math.abs(v) >= 100 ? 2 : Math.abs(v) >= 1 ? 4 : 8);
export const quantity = (v) => fixed(v, 8);

const accountKey = (a) => `${a.currency}|${a.instrument ?? ""}`;

function configLine(paper) {
  const fee = paper.buyFeeRate === paper.sellFeeRate ? `fee ${fixed(paper.buyFeeRate * 100, 3)} %` : `fees buy ${fixed(paper.buyFeeRate * 100, 3)} %, sell ${fixed(paper.sellFeeRate * 100, 3)} %`;
  const accounts = paper.accounts === "instrument" ? "one account per instrument" : "one shared account per quote currency";
  const lock = paper.percentAmountToLock != null ? `${fixed(paper.percentAmountToLock, 1)} % of the free balance per entry` : `${paper.accounts === "instrument" ? "the whole" : "10 % of the"} free balance per entry`;
  return `${fixed(paper.initialFunding, 2)} of each account's currency to start, ${accounts}, ${lock}, ${fee} (${esc(paper.feeLeg.toLowerCase())} leg), output ${esc(paper.output)}.`;
}

// The section of a run started with a paper block; nothing at all for one without.
export function paperSection(run) {
  if (!run.paper) return "";
  return `<section class="card" id="paper"><h2>Paper trading</h2>
      <p class="muted" id="paper-config">${configLine(run.paper)} Nothing is sent to an exchange: fills are simulated as a backtest makes them.</p>
      <p id="paper-note" class="muted" role="status">reading the paper accounts…</p>
      <p class="error" id="paper-error" role="alert"></p></section>
    <div id="paper-accounts"></div>`;
}

function positionRows(account) {
  if (!account.openPositions.length) return `<tr class="empty"><td colspan="5" class="muted">flat: no open position</td></tr>`;
  return account.openPositions.map((p) => {
    const side = p.base < 0 ? "short" : "long";
    const entry = p.base ? Math.abs(p.cost / p.base) : null;
    return `<tr data-instrument="${esc(p.instrument)}"><td class="nowrap">${esc(p.instrument)}</td>
      <td class="nowrap side" data-value="${esc(p.base)}"><span class="${side === "long" ? "buy" : "sell"}">${side}</span> ${esc(quantity(Math.abs(p.base)))}</td>
      <td class="entry" data-value="${esc(entry ?? "")}">${entry === null ? "" : esc(price(entry))}</td>
      <td class="mark" data-value="${esc(p.markPrice ?? "")}">${p.markPrice != null ? `${esc(price(p.markPrice))} <span class="muted">at ${esc(utcSeconds(p.markedAtMs))}</span>` : '<span class="muted">not marked yet</span>'}</td>
      <td class="unrealised" data-value="${esc(p.unrealisedPnl ?? "")}">${p.unrealisedPnl != null ? esc(money(p.unrealisedPnl, account.currency)) : '<span class="muted">at the next mark</span>'}</td></tr>`;
  }).join("");
}

function instrumentRows(account) {
  return (account.instruments || []).map((i) => `<tr data-instrument="${esc(i.instrument)}"><td class="nowrap">${esc(i.instrument)}</td><td>${esc(i.trades)}</td><td>${esc(i.wins)} / ${esc(i.losses)}</td>
    <td>${esc(money(i.realisedPnl, account.currency))}</td><td>${i.contributionPct != null ? esc(`${fixed(i.contributionPct, 2)} %`) : ""}</td>
    <td>${i.unrealisedPnl != null ? esc(money(i.unrealisedPnl, account.currency)) : ""}</td></tr>`).join("");
}

// The figures of one account (redrawn when they change; the chart beside them is not).
function figures(account) {
  const c = account.currency;
  const unrealised = account.unrealisedPnl != null
    ? esc(money(account.unrealisedPnl, c))
    : '<span class="muted">not known until the next minute mark values the open position(s)</span>';
  const kpis = account.kpi ? metricRows(account.kpi, c) : "";
  const wins = account.kpi && account.kpi.winCount !== undefined ? `<tr><th>Wins / losses</th><td data-metric="winLoss">${esc(account.kpi.winCount)} / ${esc(account.kpi.lossCount)}</td></tr>` : "";
  const split = account.instruments && account.instruments.length
    ? `<h3>By instrument</h3>${tableWrap(`<table class="paper-instruments nowrap"><thead><tr><th>Instrument</th><th>Trades</th><th>Wins / losses</th><th>Realised</th><th>Of capital</th><th>Unrealised</th></tr></thead><tbody>${instrumentRows(account)}</tbody></table>`)}`
    : "";
  return `<div class="columns">
    <div><h3>Account</h3>${tableWrap(`<table class="paper-figures"><tbody>
      <tr><th>Equity</th><td class="paper-equity" data-value="${esc(account.equity)}">${esc(money(account.equity, c))}</td></tr>
      <tr><th>Realised PnL</th><td class="paper-realised" data-value="${esc(account.realisedPnl)}">${esc(money(account.realisedPnl, c))}</td></tr>
      <tr><th>Unrealised PnL</th><td class="paper-unrealised" data-value="${esc(account.unrealisedPnl ?? "")}">${unrealised}</td></tr>
      ${account.totalPnl != null ? `<tr><th>Total PnL</th><td class="paper-total" data-value="${esc(account.totalPnl)}">${esc(money(account.totalPnl, c))}</td></tr>` : ""}
      <tr><th>Initial funding</th><td class="paper-funding">${esc(money(account.initialFunding, c))}</td></tr>
      <tr><th>Closed trades</th><td class="paper-trades">${esc(account.trades)}</td></tr>
      ${account.gaps ? `<tr><th>Gaps</th><td class="paper-gaps">${esc(account.gaps)} position(s) lost to a restart of the run</td></tr>` : ""}
      <tr><th>As of (UTC)</th><td class="paper-asof">${account.equityAtMs ? `${esc(utcSeconds(account.equityAtMs))} (${account.equityKind === "mark" ? "minute mark" : "closed trade"})` : "starting capital: nothing closed or marked yet"}</td></tr>
    </tbody></table>`)}</div>
    <div><h3>KPIs</h3>${kpis ? tableWrap(`<table class="paper-kpis"><tbody>${kpis}${wins}</tbody></table>`) : '<p class="muted paper-no-kpis">No closed trade yet: the KPIs appear after the first one (Sharpe and Sortino after the second).</p>'}</div>
  </div>
  <h3>Open positions</h3>
  ${tableWrap(`<table class="paper-positions nowrap"><thead><tr><th>Instrument</th><th>Side / quantity</th><th>Entry price</th><th>Mark</th><th>Unrealised</th></tr></thead><tbody>${positionRows(account)}</tbody></table>`)}
  <p class="muted">Entry price: the position's cost over its quantity (fees included). Open positions are valued at each minute of market time.</p>
  ${split}`;
}

function accountCard(account, index) {
  const title = account.instrument ? `${esc(account.instrument)} account (${esc(account.currency)})` : `${esc(account.currency)} account`;
  return `<section class="card paper-account" data-currency="${esc(account.currency)}"${account.instrument ? ` data-instrument="${esc(account.instrument)}"` : ""} data-index="${index}">
    <h2>Paper: ${title}</h2>
    <div class="paper-body"></div>
    <h3>Equity (${esc(account.currency)})</h3><div class="paper-chart"></div><p class="muted paper-chart-note"></p>
    <p class="error paper-chart-error" role="alert"></p></section>`;
}

// -> {refresh()}: reads the accounts (and the curves whose account moved) and redraws what changed.
export function paperUpdater(runId) {
  const root = $("#paper-accounts");
  const cards = new Map(); // account key -> {node, drawn, moved, chart, zoom}
  let resample = null;
  let lastNote = "";

  const curveQuery = (account) => {
    const who = account.instrument ? `instrument=${encodeURIComponent(account.instrument)}` : `currency=${encodeURIComponent(account.currency)}`;
    return `${who}&outMode=SHORT&resample=${resample}`;
  };

  const drawCurve = async (account, card) => {
    const query = curveQuery(account);
    const { data } = await api("GET", `/live/${encodeURIComponent(runId)}/paper/equity?${query}`);
    const box = card.node.querySelector(".paper-chart");
    const xs = data.timestamps || (data.points || []).map((p) => p.timestamp);
    const ys = data.equities || (data.points || []).map((p) => p.equity);
    box.dataset.query = query;
    if (!xs.length) {
      box.innerHTML = '<p class="muted paper-no-curve">No equity recorded yet: the curve starts at the first closed trade, or at the first minute mark while a position is open.</p>';
      card.chart = null;
      return;
    }
    card.chart = lineChart(box, {
      xs, ys, gaps: data.gaps, label: `paper equity of the ${account.currency} account`,
      onZoom: (z) => { card.zoom = z; },
    });
    if (card.zoom) card.chart.zoom(card.zoom[0], card.zoom[1]);
    const gaps = data.gaps.length ? ` ${data.gaps.length} gap(s), dashed: the line is broken where open positions were lost to a restart.` : "";
    const shaped = data.meta.resampled ? ` Resampled from ${data.meta.inputPointCount} recorded values (extremes and both ends kept).` : "";
    card.node.querySelector(".paper-chart-note").textContent = `${xs.length} point(s): the equity after each closed trade and at each minute mark with a position open.${shaped}${gaps} Drag to zoom, double click to reset.`;
  };

  const place = (account, index) => {
    const key = accountKey(account);
    let card = cards.get(key);
    if (!card) {
      root.insertAdjacentHTML("beforeend", accountCard(account, index));
      card = { node: root.lastElementChild, drawn: "", moved: "", chart: null, zoom: null };
      cards.set(key, card);
    }
    const text = JSON.stringify(account);
    if (text !== card.drawn) {
      card.drawn = text;
      card.node.querySelector(".paper-body").innerHTML = figures(account);
    }
    return card;
  };

  return {
    async refresh() {
      let data;
      try {
        data = (await api("GET", `/live/${encodeURIComponent(runId)}/paper`)).data;
        $("#paper-error").textContent = "";
      } catch (err) { showError("#paper-error", err); return; }
      if (resample === null) resample = Math.max(RESAMPLE_MIN, Math.min(RESAMPLE_MAX, 2 * (root.clientWidth || 900)));
      const note = data.accounts.length
        ? `${data.accounts.length} account(s), stage ${data.stage}.`
        : "No fills yet: the first fill appears when the strategy emits its first buy or sell hint on a live update (not during the warm-up); the account of that pair's quote currency opens then with the initial funding above.";
      if (note !== lastNote) { $("#paper-note").textContent = note; lastNote = note; }
      $("#paper-note").dataset.accounts = String(data.accounts.length);
      const curves = [];
      data.accounts.forEach((account, index) => {
        const card = place(account, index);
        // The curve moves with the account's last value, its trades and its gaps.
        const moved = `${account.equityAtMs}|${account.trades}|${account.gaps}|${account.equity}`;
        if (moved !== card.moved) {
          curves.push(drawCurve(account, card).then(() => { card.moved = moved; card.node.querySelector(".paper-chart-error").textContent = ""; },
            (err) => showError(card.node.querySelector(".paper-chart-error"), err)));
        }
      });
      await Promise.all(curves);
    },
  };
}
