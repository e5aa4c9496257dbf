// The public /v1 API as the page calls it. The JWT lives in this tab's sessionStorage only;
// everything else (jobs, sweeps, strategies) is read from the API, never remembered here.
import { $ } from "./dom.js";

export const API = "/v1";

export const session = {
  get token() { return sessionStorage.getItem("backtestd.jwt"); },
  set token(v) { v ? sessionStorage.setItem("backtestd.jwt", v) : sessionStorage.removeItem("backtestd.jwt"); },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

// What to do when the service refuses the token (the router shows the sign-in form).
let onRefused = () => {};
export function whenRefused(callback) { onRefused = callback; }

export async function api(method, path, body, { raw = false, text = false, asText = false } = {}) {
  const headers = {};
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  let payload;
  if (text) { headers["Content-Type"] = "text/plain"; payload = body; }
  else if (body !== undefined) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
  const response = await fetch(API + path, { method, headers, body: payload });
  if (raw) return response;
  const json = response.headers.get("content-type")?.includes("json");
  const data = json ? await response.json() : asText && response.ok ? await response.text() : null;
  if (response.status === 401 && !path.startsWith("/auth")) {
    // Back to the sign-in form, keeping the location so signing in returns there. The error
    // still propagates (so callers stop), but showError() and the router leave the form alone.
    const expired = new ApiError(401, { message: "your session expired or was refused: sign in again" });
    if (session.token) { session.token = null; onRefused(expired.message); }
    throw expired;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data };
}

export async function fetchText(path) {
  return (await api("GET", path, undefined, { asText: true })).data;
}

// An API error next to what caused it. After a 401 the sign-in form has replaced the view, so
// there is nothing to write into (and the form's own message must stay).
export function showError(target, err) {
  if (err && err.status === 401 && !session.token) return;
  const node = typeof target === "string" ? $(target) : target;
  if (node) node.textContent = err && err.message ? err.message : String(err);
}

// The download path of one hour of an instrument ("BTC/USDT" or "BTC/USDT:USDT").
export function hourPath(exchange, kind, instrument, hour, format) {
  const [base, quote] = instrument.split("/");
  return `/exchange/${encodeURIComponent(exchange)}/${kind}/${encodeURIComponent(base)}/${encodeURIComponent(quote)}?hour=${hour}&format=${format}`;
}

// Every page of a listing route ({items key}, `next` cursor), up to `max` entries.
export async function listAll(path, key, max = 200) {
  const out = [];
  let cursor = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const { data } = await api("GET", `${path}${sep}limit=${Math.min(200, max - out.length)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    out.push(...data[key]);
    cursor = data.next;
  } while (cursor && out.length < max);
  return out;
}

// Strategy names by id (the QTScript title or Java class name), for labels everywhere.
export async function strategyNames() {
  const { data } = await api("GET", "/strategies");
  return { list: data.strategies, name: (id) => data.strategies.find((s) => s.strategyId === id)?.name };
}
