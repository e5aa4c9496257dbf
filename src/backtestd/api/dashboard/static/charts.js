// Small SVG charts for the dashboard: line (with zoom by drag, reset by double click),
// drawdown area, buy/sell markers and a heatmap. No library: everything ships with the service.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Extrema-preserving downsample to about `buckets` points per series: every bucket keeps its
// first, minimum, maximum and last point, so spikes and the global extrema survive.
function resampleExtrema(xs, ys, buckets) {
  const n = xs.length;
  if (n <= buckets * 4) return [xs, ys];
  const ox = [], oy = [];
  const size = n / buckets;
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor(b * size), hi = Math.min(n, Math.floor((b + 1) * size));
    if (hi <= lo) continue;
    let mi = lo, ma = lo;
    for (let i = lo; i < hi; i++) {
      if (ys[i] < ys[mi]) mi = i;
      if (ys[i] > ys[ma]) ma = i;
    }
    for (const i of [...new Set([lo, mi, ma, hi - 1])].sort((a, b) => a - b)) {
      ox.push(xs[i]); oy.push(ys[i]);
    }
  }
  return [ox, oy];
}

function drawdownPercent(ys) {
  let peak = -Infinity;
  return ys.map((y) => { peak = Math.max(peak, y); return peak > 0 ? (y / peak - 1) * 100 : 0; });
}

function fmtTime(ms) {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16);
}

function fmtNum(v) {
  const a = Math.abs(v);
  if (a >= 1e6 || (a > 0 && a < 1e-3)) return v.toExponential(2);
  return v.toFixed(a >= 100 ? 1 : 3);
}

// lineChart(container, {xs, ys, area, markers:[{x, y, side}], label}) -> {redraw(range)}
function lineChart(container, opts) {
  container.innerHTML = "";
  const width = Math.max(320, container.clientWidth || 900), height = 260;
  const pad = { l: 64, r: 12, t: 14, b: 28 };
  const svg = el("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, "data-points": opts.xs.length }, container);
  let range = [opts.xs[0], opts.xs[opts.xs.length - 1]];

  function draw() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const idx = [];
    for (let i = 0; i < opts.xs.length; i++) if (opts.xs[i] >= range[0] && opts.xs[i] <= range[1]) idx.push(i);
    const [xs, ys] = resampleExtrema(idx.map((i) => opts.xs[i]), idx.map((i) => opts.ys[i]), Math.floor((width - pad.l - pad.r) / 2));
    svg.setAttribute("data-drawn", xs.length);
    if (xs.length === 0) return;
    let y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (opts.area) y1 = Math.max(y1, 0);
    if (y0 === y1) { y0 -= 1; y1 += 1; }
    const x0 = range[0], x1 = range[1] > range[0] ? range[1] : range[0] + 1;
    const sx = (x) => pad.l + (x - x0) / (x1 - x0) * (width - pad.l - pad.r);
    const sy = (y) => pad.t + (1 - (y - y0) / (y1 - y0)) * (height - pad.t - pad.b);
    el("line", { class: "axis", x1: pad.l, y1: height - pad.b, x2: width - pad.r, y2: height - pad.b }, svg);
    el("line", { class: "axis", x1: pad.l, y1: pad.t, x2: pad.l, y2: height - pad.b }, svg);
    for (const y of [y0, (y0 + y1) / 2, y1]) {
      el("text", { x: 4, y: sy(y) + 4 }, svg).textContent = fmtNum(y);
    }
    el("text", { x: pad.l, y: height - 8 }, svg).textContent = fmtTime(x0);
    el("text", { x: width - pad.r - 100, y: height - 8 }, svg).textContent = fmtTime(x1);
    let d = xs.map((x, i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join("");
    if (opts.area) d += `L${sx(xs[xs.length - 1]).toFixed(1)},${sy(0)}L${sx(xs[0]).toFixed(1)},${sy(0)}Z`;
    el("path", { class: opts.area ? "dd" : "series", d }, svg);
    for (const m of opts.markers || []) {
      if (m.x < x0 || m.x > x1) continue;
      el("circle", { class: m.side > 0 ? "buy" : "sell", cx: sx(m.x), cy: sy(m.y), r: 3 }, svg);
    }
    svg._scale = { sx, x0, x1 };
  }

  // Drag to zoom into a time range; double click to see everything again.
  let start = null, brush = null;
  const toX = (evt) => {
    const box = svg.getBoundingClientRect();
    const px = (evt.clientX - box.left) / box.width * width;
    const { x0, x1 } = svg._scale;
    return x0 + (px - pad.l) / (width - pad.l - pad.r) * (x1 - x0);
  };
  svg.addEventListener("mousedown", (e) => { start = toX(e); brush = el("rect", { class: "brush", y: pad.t, height: height - pad.t - pad.b, x: 0, width: 0 }, svg); });
  svg.addEventListener("mousemove", (e) => {
    if (start === null) return;
    const { sx } = svg._scale, a = sx(Math.min(start, toX(e))), b = sx(Math.max(start, toX(e)));
    brush.setAttribute("x", a); brush.setAttribute("width", b - a);
  });
  svg.addEventListener("mouseup", (e) => {
    if (start === null) return;
    const end = toX(e), lo = Math.min(start, end), hi = Math.max(start, end);
    start = null;
    if (hi - lo > 0) { range = [lo, hi]; }
    draw();
  });
  svg.addEventListener("dblclick", () => { range = [opts.xs[0], opts.xs[opts.xs.length - 1]]; draw(); });
  draw();
  return { zoom(lo, hi) { range = [lo, hi]; draw(); }, svg };
}

// heatmap(container, cells:[{valueA, valueB, mean}], {paramA, paramB})
function heatmap(container, hm, field) {
  container.innerHTML = "";
  const as = [...new Set(hm.cells.map((c) => c.valueA))].sort((a, b) => a - b);
  const bs = [...new Set(hm.cells.map((c) => c.valueB))].sort((a, b) => a - b);
  const cw = Math.max(18, Math.min(48, 640 / Math.max(as.length, 1))), ch = Math.max(14, Math.min(32, 320 / Math.max(bs.length, 1)));
  const left = 60, top = 10;
  const w = left + cw * as.length + 10, h = top + ch * bs.length + 40;
  const svg = el("svg", { class: "heatmap", width: w, height: h, "data-cells": hm.cells.length }, container);
  const vals = hm.cells.map((c) => c[field]);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  for (const c of hm.cells) {
    const t = hi > lo ? (c[field] - lo) / (hi - lo) : 0.5;
    const color = `rgb(${Math.round(230 - 200 * t)},${Math.round(90 + 120 * t)},${Math.round(90 + 40 * (1 - t))})`;
    const r = el("rect", { x: left + as.indexOf(c.valueA) * cw, y: top + bs.indexOf(c.valueB) * ch, width: cw - 1, height: ch - 1, fill: color }, svg);
    el("title", {}, r).textContent = `${hm.paramA}=${c.valueA} ${hm.paramB}=${c.valueB}: ${field} ${fmtNum(c[field])} (n=${c.count})`;
  }
  bs.forEach((b, i) => { el("text", { x: 2, y: top + i * ch + ch * 0.7 }, svg).textContent = `${b}`; });
  as.forEach((a, i) => { if (i % Math.ceil(as.length / 12) === 0) el("text", { x: left + i * cw, y: top + bs.length * ch + 14 }, svg).textContent = `${a}`; });
  el("text", { x: left, y: h - 6 }, svg).textContent = `${hm.paramA} →   ↓ ${hm.paramB}   (${field})`;
}

// One row per walk-forward fold: the in-sample window, then the out-of-sample window it was
// judged on, labelled with the winning parameters and the out-of-sample PnL.
function foldTimeline(container, folds) {
  container.textContent = "";
  const w = 900, row = 26, left = 60, right = 260, h = folds.length * row + 30;
  const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, width: "100%", role: "img", "aria-label": "walk-forward folds" }, container);
  svg.setAttribute("data-folds", String(folds.length));
  const t0 = Math.min(...folds.map((f) => f.inSampleFrom)), t1 = Math.max(...folds.map((f) => f.outOfSampleTo));
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (w - left - right);
  folds.forEach((f, i) => {
    const y = 10 + i * row;
    el("text", { x: 4, y: y + 14 }, svg).textContent = `fold ${f.foldIx}`;
    el("rect", { x: x(f.inSampleFrom), y, width: Math.max(1, x(f.inSampleTo) - x(f.inSampleFrom)), height: 18, class: "is" }, svg);
    el("rect", { x: x(f.inSampleTo), y, width: Math.max(1, x(f.outOfSampleTo) - x(f.inSampleTo)), height: 18, class: "oos" }, svg);
    const pnl = f.outOfSample && f.outOfSample.pnlPct !== undefined ? ` OOS ${fmtNum(f.outOfSample.pnlPct)} %` : "";
    el("text", { x: w - right + 8, y: y + 14 }, svg).textContent = `${JSON.stringify(f.params)}${pnl}`;
  });
  el("text", { x: left, y: h - 4 }, svg).textContent = `${fmtTime(t0)} → ${fmtTime(t1)}   (blue: in-sample, orange: out-of-sample)`;
}

window.Charts = { lineChart, heatmap, drawdownPercent, resampleExtrema, foldTimeline };
