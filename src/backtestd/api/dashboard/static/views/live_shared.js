// What the live list and a run's page share: how runs and signals read, the property fields.
import { esc } from "../lib/dom.js";
import { utc, utcSeconds } from "../lib/format.js";

// "sim spot kline BTC/USDT" (the run's one source).
export function sourceLabel(sources) {
  const s = (sources || [])[0];
  if (!s) return "";
  const venue = s.venueType === "cex" ? "" : `${s.venueType} `;
  return `${venue}${s.exchange} ${s.segment} ${s.type} ${(s.instruments || []).join(", ")}`;
}

export const pill = (value, id = "") => `<span class="pill ${esc(value)}"${id ? ` id="${id}"` : ""}>${esc(value)}</span>`;

// The gate's verdict in words: on trial, passed (inherited or not), or failed naming the
// checks that failed. `run` needs stage and gate (the detail has them; the list does not).
export function gateLabel(run) {
  const gate = run.gate;
  if (!gate) return run.stage === "SANDBOX" ? "on trial" : "";
  if (gate.passed) return gate.inheritedFrom ? `passed (inherited from run ${gate.inheritedFrom})` : "passed";
  const failed = Object.entries(gate.checks || {}).filter(([, ok]) => ok === false).map(([k]) => k);
  return failed.length ? `failed: ${failed.join(", ")}` : "failed";
}

export const gateClass = (run) => (!run.gate ? "" : run.gate.passed ? "passed" : "failed");

export const runLabel = (run) => run.name || run.runId;
export const runPath = (runId) => `#/live/${encodeURIComponent(runId)}`;
export const startedLabel = (ms) => (ms ? utc(ms) : "");

// The columns of a signal row (the recorded table and the real-time list show the same ones).
export const SIGNAL_HEAD = "<tr><th>Market time (UTC)</th><th>Stage</th><th>Type</th><th>Kind</th><th>Instrument</th><th>Price</th><th>Data</th><th>Params v.</th><th>Signal id</th></tr>";

function dataText(data) {
  if (!data || typeof data !== "object") return "";
  return Object.entries(data).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
}

// Rows stay one line (the table scrolls sideways in its box); a long payload is cut, whole
// in its tooltip.
const DATA_SHOWN = 80;
const dataCell = (text) => (text.length > DATA_SHOWN
  ? `<td title="${esc(text)}">${esc(text.slice(0, DATA_SHOWN))}…</td>`
  : `<td>${esc(text)}</td>`);

export function signalRow(s) {
  const kind = s.kind ?? "";
  const side = kind === "BUY" ? "buy" : kind === "SELL" ? "sell" : "";
  return `<tr data-id="${esc(s.signalId)}"><td class="nowrap">${esc(utcSeconds(s.eventTsMs))}</td><td>${esc(s.stage)}</td><td>${esc(s.type)}</td>
    <td class="${side}">${esc(kind)}</td><td class="nowrap">${esc(s.instrument?.symbol ?? "")}</td><td>${esc(s.order?.price ?? "")}</td>
    ${dataCell(dataText(s.data))}<td>${esc(s.paramsVersion ?? "")}</td><td><code class="id">${esc(s.signalId)}</code></td></tr>`;
}

// The cursor of a `_links.next` href (the API's pages carry it in the href's query).
export function nextCursor(body) {
  const href = body?._links?.next?.href;
  return href ? new URL(href, location.origin).searchParams.get("cursor") : null;
}

// One field per declared property (its description beside the name, its default as the
// placeholder, `values` filled in), then `note`.
export function paramFields(props, values, note) {
  if (!props.length) return '<p class="muted">This strategy declares no properties: it runs with its own values.</p>';
  return `<div class="row">${props.map((p) => `<div data-param="${esc(p.name)}"><label>${esc(p.name)}${p.description ? ` <span class="muted">${esc(p.description)}</span>` : ""}</label>
    <input name="param:${esc(p.name)}" value="${esc(values[p.name] ?? "")}" placeholder="${esc(p.defaultValue ?? "")}"></div>`).join("")}</div>
    <p class="muted">${esc(note)}</p>`;
}

// The filled-in properties, as typed: the service converts each to its declared type (and
// says which value does not fit), so "007" for a text property stays "007".
export function paramsFrom(form) {
  const params = {};
  for (const input of form.querySelectorAll("input[name^='param:']")) {
    const text = input.value.trim();
    if (text !== "") params[input.name.slice("param:".length)] = text;
  }
  return params;
}
