// Numbers and times as people read them: fixed decimals, percentages with a % sign, a true
// minus sign, UTC times without seconds. Every view formats through here.

const MINUS = "\u2212";
const sign = (text) => text.replace(/^-/, MINUS);

export function fixed(v, digits = 2) {
  if (v === undefined || v === null || v === "") return "";
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  const text = n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return sign(text === `-${(0).toFixed(digits)}` ? (0).toFixed(digits) : text);
}

// A value already on the 0-100 scale.
export const percent = (v, digits = 2) => (v === undefined || v === null ? "" : `${fixed(v, digits)} %`);
// A ratio (0.15) shown as a percentage (15.0 %).
export const ratioPercent = (v, digits = 1) => (v === undefined || v === null ? "" : percent(Number(v) * 100, digits));

// Axis labels: few significant digits, exponent only for very large or tiny magnitudes.
export function compact(v) {
  const a = Math.abs(v);
  if (a >= 1e6 || (a > 0 && a < 1e-3)) return sign(v.toExponential(2));
  return fixed(v, a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3);
}

export const utc = (ms) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);
// Live signals arrive seconds apart: their times keep the seconds.
export const utcSeconds = (ms) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);
export const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);
export const isoUtc = (text) => (text ? utc(Date.parse(text)) : "");

// Params as `fast=5, slow=20` (a JSON object would wrap badly and read worse).
export const params = (p) => Object.entries(p || {}).map(([k, v]) => `${k}=${v}`).join(", ");
