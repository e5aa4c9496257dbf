// Labels of jobs as the listing routes describe them (GET /backtest/jobs, /backtest/sweeps),
// shared by the backtest, result and sweep views.
import { esc } from "../lib/dom.js";
import { isoUtc, params } from "../lib/format.js";

export function windowLabel(w) {
  if (!w) return "";
  return `${w.instrument} ${isoUtc(w.from)} → ${isoUtc(w.to)} UTC (${w.cadence})`;
}

// Dataset names by id, for labels of prepares of user datasets (set by views that list them).
const datasetNames = new Map();
export function knowDatasets(datasets) { for (const d of datasets) datasetNames.set(d.datasetId, d.name); }

export function prepareLabel(job) {
  const id = job.window?.datasetId;
  const source = job.exchangeId === "user" ? `dataset ${datasetNames.get(id) ?? `${String(id).slice(0, 8)}…`}` : job.exchangeId;
  return `${source} ${job.type} · ${windowLabel(job.window)}`;
}

export function executeLabel(job) {
  const p = params(job.params);
  return `${job.strategyName || job.strategyId}${p ? ` (${p})` : ""} on ${job.window ? job.window.instrument : job.prepareJobId}`;
}

export const resultPath = (job) => `#/result/${job.exchangeId}/${job.type}/${job.jobId}`;
export const sweepPath = (s) => `#/sweep/${s.exchangeId}/${s.type}/${s.requestId}/${s.sweepId}`;

// The options of a "prepared data" select: the completed prepares, newest first.
export function preparedOptions(prepares) {
  return prepares.filter((p) => p.status === "Completed").map((p) => `<option value="${esc(`${p.jobId}|${p.exchangeId}|${p.type}`)}">${esc(prepareLabel(p))}</option>`).join("");
}
