// Small DOM helpers every view uses: query, escape, the toast, errors next to their cause.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
// The page's view. A render that a later navigation has replaced (`shown()` false: router.js
// `stillShown`) is stopped here instead, before it draws its late answer over the page shown or
// hangs its handlers on that page's elements of the same id; the router ignores its errors.
export const view = (shown = () => true) => {
  if (!shown()) throw new Error("this page was left before it was drawn");
  return $("#view");
};

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

export function toast(message) {
  const t = $("#toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

// A table inside a box that scrolls sideways on its own, so a wide table never widens the page.
export function tableWrap(tableHtml) {
  return `<div class="table-wrap">${tableHtml}</div>`;
}

export function bar(used, limit) {
  const pct = limit > 0 ? Math.min(100, used / limit * 100) : 0;
  return `<div class="bar" title="${used} of ${limit}"><span style="width:${pct.toFixed(1)}%"></span></div>`;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
