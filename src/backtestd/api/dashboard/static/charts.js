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

// lineChart(container, {xs, ys, area, markers:[{x, y, side}]}) or, for several curves on one
// set of axes, lineChart(container, {series:[{xs, ys, label, id}], highlight: id}).
// -> {zoom(lo, hi), svg}
function lineChart(container, opts) {
  container.innerHTML = "";
  const series = opts.series || [{ xs: opts.xs, ys: opts.ys }];
  const width = Math.max(320, container.clientWidth || 900), height = 260;
  const pad = { l: 64, r: 12, t: 14, b: 28 };
  const total = series.reduce((n, s) => n + s.xs.length, 0);
  const svg = el("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, "data-points": total, "data-series": series.length, role: "img", "aria-label": opts.label || "line chart" }, container);
  const fullRange = () => [Math.min(...series.map((s) => s.xs[0])), Math.max(...series.map((s) => s.xs[s.xs.length - 1]))];
  let range = fullRange();

  function draw() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const visible = series.map((s) => {
      const idx = [];
      for (let i = 0; i < s.xs.length; i++) if (s.xs[i] >= range[0] && s.xs[i] <= range[1]) idx.push(i);
      return resampleExtrema(idx.map((i) => s.xs[i]), idx.map((i) => s.ys[i]), Math.floor((width - pad.l - pad.r) / 2));
    });
    const drawn = visible.reduce((n, [xs]) => n + xs.length, 0);
    svg.setAttribute("data-drawn", drawn);
    if (drawn === 0) return;
    const allYs = visible.flatMap(([, ys]) => ys).concat((opts.markers || []).filter((m) => m.x >= range[0] && m.x <= range[1]).map((m) => m.y));
    let y0 = Math.min(...allYs), y1 = Math.max(...allYs);
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
    visible.forEach(([xs, ys], k) => {
      if (!xs.length) return;
      let d = xs.map((x, i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join("");
      if (opts.area) d += `L${sx(xs[xs.length - 1]).toFixed(1)},${sy(0)}L${sx(xs[0]).toFixed(1)},${sy(0)}Z`;
      const s = series[k];
      let cls = opts.area ? "dd" : "series";
      if (opts.series) cls += ` s${k % 8}` + (opts.highlight !== undefined && s.id === opts.highlight ? " highlight" : "");
      const path = el("path", { class: cls, d }, svg);
      if (s.id !== undefined) path.setAttribute("data-id", s.id);
      if (s.label) el("title", {}, path).textContent = s.label;
    });
    for (const m of opts.markers || []) {
      if (m.x < x0 || m.x > x1) continue;
      const dot = el("circle", { class: m.side > 0 ? "buy" : "sell", cx: sx(m.x), cy: sy(m.y), r: 4 }, svg);
      el("title", {}, dot).textContent = `${m.side > 0 ? "buy" : "sell"} ${fmtNum(m.y)} at ${fmtTime(m.x)}`;
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
  svg.addEventListener("dblclick", () => { range = fullRange(); draw(); });
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
  const svg = el("svg", { class: "heatmap", width: w, height: h, "data-cells": hm.cells.length, role: "img", "aria-label": `heatmap of ${hm.paramA} by ${hm.paramB}` }, container);
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

// A sweep axis's marginal: the objective's best, mean and worst (over the other axes) at each
// of the axis's values, as three lines over the values in order.
function marginalChart(container, marginal) {
  container.textContent = "";
  const pts = marginal.points;
  const w = 420, h = 150, left = 56, right = 10, top = 10, bottom = 26;
  const svg = el("svg", { class: "marginal-svg", viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img", "aria-label": `${marginal.param}: best, mean and worst by value`, "data-values": pts.length }, container);
  if (!pts.length) return;
  const all = pts.flatMap((p) => [p.best, p.mean, p.worst]);
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  const x = (i) => left + (pts.length > 1 ? i / (pts.length - 1) : 0.5) * (w - left - right);
  const y = (v) => top + (1 - (v - lo) / (hi - lo)) * (h - top - bottom);
  el("line", { class: "axis", x1: left, y1: h - bottom, x2: w - right, y2: h - bottom }, svg);
  for (const v of [lo, hi]) el("text", { x: 2, y: y(v) + 4 }, svg).textContent = fmtNum(v);
  for (const field of ["worst", "mean", "best"]) {
    const d = pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p[field]).toFixed(1)}`).join("");
    el("path", { class: `m-${field}`, d }, svg);
    pts.forEach((p, i) => { el("title", {}, el("circle", { class: `m-${field}`, cx: x(i), cy: y(p[field]), r: field === "mean" ? 3 : 2 }, svg)).textContent = `${marginal.param}=${p.value}: ${field} ${fmtNum(p[field])} (n=${p.count})`; });
  }
  const every = Math.ceil(pts.length / 10);
  pts.forEach((p, i) => { if (i % every === 0) el("text", { x: x(i) - 6, y: h - 8 }, svg).textContent = `${p.value}`; });
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

window.Charts = { lineChart, heatmap, marginalChart, drawdownPercent, resampleExtrema, foldTimeline };
