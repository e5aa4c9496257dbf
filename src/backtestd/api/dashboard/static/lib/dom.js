// Small DOM helpers every view uses: query, escape, the toast, errors next to their cause.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
// The page's view, or, for a render that a later navigation has replaced (`shown()` false:
// see router.js `stillShown`), a detached element, so that its late answer is drawn nowhere.
export const view = (shown = () => true) => (shown() ? $("#view") : document.createElement("main"));

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
