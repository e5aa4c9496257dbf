// Small SVG charts for the dashboard: line (zoom by drag, reset by double click, linkable to
// another chart's zoom), drawdown area, buy/sell markers, a heatmap with its colour scale, a
// marginal chart and the walk-forward timeline. No library: everything ships with the service.
import { compact, fixed, utc, utcDay } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";

export function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Extrema-preserving downsample to about `buckets` points per series: every bucket keeps its
// first, minimum, maximum and last point, so spikes and the global extrema survive.
export function resampleExtrema(xs, ys, buckets) {
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

export function drawdownPercent(ys) {
  let peak = -Infinity;
  return ys.map((y) => { peak = Math.max(peak, y); return peak > 0 ? (y / peak - 1) * 100 : 0; });
}

// lineChart(container, {xs, ys, area, markers:[{x, y, side}], gaps:[x], onZoom}) or, for several
// curves on one set of axes, lineChart(container, {series:[{xs, ys, label, id}], highlight: id}).
// -> {zoom(lo, hi), reset(), svg}. `onZoom([lo, hi] | null)` is told of the user's zooms.
// `gaps` are times where the record has a hole: the line is broken there (never drawn across
// it) and a dashed vertical mark stands at each.
export function lineChart(container, opts) {
  container.innerHTML = "";
  const series = opts.series || [{ xs: opts.xs, ys: opts.ys }];
  const width = Math.max(300, container.clientWidth || 900), height = 260;
  const pad = { l: 60, r: 14, t: 14, b: 30 };
  const total = series.reduce((n, s) => n + s.xs.length, 0);
  const gaps = [...(opts.gaps || [])].sort((a, b) => a - b);
  const svg = el("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, "data-points": total, "data-series": series.length, "data-gaps": gaps.length, role: "img", "aria-label": opts.label || "line chart" }, container);
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
    svg.setAttribute("data-from", Math.round(range[0]));
    svg.setAttribute("data-to", Math.round(range[1]));
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
      el("text", { x: pad.l - 6, y: sy(y) + 4, "text-anchor": "end" }, svg).textContent = compact(y) + (opts.unit || "");
    }
    el("text", { x: pad.l, y: height - 9 }, svg).textContent = utc(x0);
    el("text", { x: width - pad.r, y: height - 9, "text-anchor": "end" }, svg).textContent = utc(x1);
    visible.forEach(([xs, ys], k) => {
      if (!xs.length) return;
      // A new subpath ("M") after each gap: xs[i-1] < gap <= xs[i] is never joined.
      let g = 0;
      const line = xs.map((x, i) => {
        while (g < gaps.length && gaps[g] <= (i ? xs[i - 1] : x)) g++;
        const broken = i > 0 && g < gaps.length && gaps[g] <= x;
        return `${i && !broken ? "L" : "M"}${sx(x).toFixed(1)},${sy(ys[i]).toFixed(1)}`;
      }).join("");
      const s = series[k];
      if (opts.area) {
        // The fill closes along the zero line, without a stroke; the curve is stroked on its
        // own, so no edge is drawn back up to zero at the end (which read as a recovery).
        const fill = `${line}L${sx(xs[xs.length - 1]).toFixed(1)},${sy(0).toFixed(1)}L${sx(xs[0]).toFixed(1)},${sy(0).toFixed(1)}Z`;
        el("path", { class: "dd", d: fill }, svg);
        const stroke = el("path", { class: "dd-line", d: line }, svg);
        stroke.setAttribute("data-end", ys[ys.length - 1]);
        return;
      }
      let cls = "series";
      if (opts.series) cls += ` s${k % 8}` + (opts.highlight !== undefined && s.id === opts.highlight ? " highlight" : "");
      const path = el("path", { class: cls, d: line }, svg);
      if (s.id !== undefined) path.setAttribute("data-id", s.id);
      if (s.label) el("title", {}, path).textContent = s.label;
    });
    for (const t of gaps) {
      if (t < x0 || t > x1) continue;
      const mark = el("line", { class: "gap", x1: sx(t), y1: pad.t, x2: sx(t), y2: height - pad.b }, svg);
      el("title", {}, mark).textContent = `gap at ${utc(t)}: positions lost to a restart`;
    }
    for (const m of opts.markers || []) {
      if (m.x < x0 || m.x > x1) continue;
      const dot = el("circle", { class: m.side > 0 ? "buy" : "sell", cx: sx(m.x), cy: sy(m.y), r: 4 }, svg);
      el("title", {}, dot).textContent = `${m.side > 0 ? "buy" : "sell"} ${compact(m.y)} at ${utc(m.x)}`;
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
  svg.addEventListener("mousedown", (e) => { if (!svg._scale) return; start = toX(e); brush = el("rect", { class: "brush", y: pad.t, height: height - pad.t - pad.b, x: 0, width: 0 }, svg); });
  svg.addEventListener("mousemove", (e) => {
    if (start === null) return;
    const { sx } = svg._scale, a = sx(Math.min(start, toX(e))), b = sx(Math.max(start, toX(e)));
    brush.setAttribute("x", a); brush.setAttribute("width", b - a);
  });
  svg.addEventListener("mouseup", (e) => {
    if (start === null) return;
    const end = toX(e), lo = Math.min(start, end), hi = Math.max(start, end);
    start = null;
    // A click (no drag) only takes the brush away. Redrawing would replace the element under
    // the pointer, and the browser counts a click on a new element as a first click: a double
    // click on the curve itself never reset the zoom.
    if (hi - lo > 0) { range = [lo, hi]; opts.onZoom?.(range); draw(); } else { brush.remove(); }
    brush = null;
  });
  svg.addEventListener("dblclick", () => { range = fullRange(); opts.onZoom?.(null); draw(); });
  draw();
  return {
    zoom(lo, hi) { range = [lo, hi]; draw(); },
    reset() { range = fullRange(); draw(); },
    svg,
  };
}

// The heatmap's colours. A diverging scale around zero for the objectives where higher is
// better (a negative Sharpe is red however it compares to its neighbours); for maxdd (lower
// is better, never negative) a sequential scale from green at 0 to red at the worst.
function colourScale(values, lowerIsBetter) {
  const span = Math.max(1e-12, ...values.map((v) => Math.abs(v)));
  const mix = (a, b, t) => a.map((c, i) => Math.round(c + (b[i] - c) * t));
  const white = [247, 247, 247], green = [26, 152, 80], red = [215, 48, 39];
  const colour = (v) => {
    const goodness = lowerIsBetter ? 1 - 2 * Math.min(1, v / span) : Math.max(-1, Math.min(1, v / span));
    const rgb = goodness >= 0 ? mix(white, green, goodness) : mix(white, red, -goodness);
    return `rgb(${rgb.join(",")})`;
  };
  const stops = lowerIsBetter ? [0, span / 2, span] : [-span, 0, span];
  return { colour, stops };
}

// heatmap(container, {paramA, paramB, cells:[{valueA, valueB, mean, count}]}, field, objective)
export function heatmap(container, hm, field, objective) {
  container.innerHTML = "";
  const as = [...new Set(hm.cells.map((c) => c.valueA))].sort((a, b) => a - b);
  const bs = [...new Set(hm.cells.map((c) => c.valueB))].sort((a, b) => a - b);
  const cw = Math.max(34, Math.min(64, 640 / Math.max(as.length, 1))), ch = Math.max(22, Math.min(36, 360 / Math.max(bs.length, 1)));
  const left = 56, top = 8, legendH = 46;
  const w = Math.max(left + cw * as.length + 12, left + 250), h = top + ch * bs.length + 36 + legendH;
  const svg = el("svg", { class: "heatmap", viewBox: `0 0 ${w} ${h}`, width: w, "data-cells": hm.cells.length, role: "img", "aria-label": `heatmap of mean ${objective} by ${hm.paramA} and ${hm.paramB}` }, container);
  svg.style.maxWidth = "100%";
  svg.style.height = "auto";
  const vals = hm.cells.map((c) => c[field]);
  const { colour, stops } = colourScale(vals, objective === "maxdd");
  const showValues = cw >= 34 && ch >= 18;
  for (const c of hm.cells) {
    const x = left + as.indexOf(c.valueA) * cw, y = top + (bs.length - 1 - bs.indexOf(c.valueB)) * ch;
    const r = el("rect", { class: "cell", x, y, width: cw - 1, height: ch - 1, fill: colour(c[field]), "data-value": c[field] }, svg);
    el("title", {}, r).textContent = `${hm.paramA}=${c.valueA} ${hm.paramB}=${c.valueB}: mean ${objective} ${fixed(c[field], 3)} (${c.count} runs)`;
    if (showValues) el("text", { class: "cell-value", x: x + (cw - 1) / 2, y: y + ch / 2 + 4, "text-anchor": "middle" }, svg).textContent = fixed(c[field], 2);
  }
  bs.forEach((b, i) => { el("text", { x: left - 6, y: top + (bs.length - 1 - i) * ch + ch / 2 + 4, "text-anchor": "end" }, svg).textContent = `${b}`; });
  const every = Math.ceil(as.length / 12);
  as.forEach((a, i) => { if (i % every === 0) el("text", { x: left + i * cw + cw / 2, y: top + bs.length * ch + 14, "text-anchor": "middle" }, svg).textContent = `${a}`; });
  el("text", { x: left, y: top + bs.length * ch + 30 }, svg).textContent = `${hm.paramA} → (rows: ${hm.paramB} ↑)`;
  // The colour scale: a gradient bar with its ends and middle labelled.
  const ly = top + bs.length * ch + 38, lw = Math.min(220, w - left - 12);
  const scale = el("g", { class: "colour-scale", "data-min": stops[0], "data-max": stops[2] }, svg);
  const n = 24;
  for (let i = 0; i < n; i++) {
    const v = stops[0] + (stops[2] - stops[0]) * (i + 0.5) / n;
    el("rect", { x: left + i * lw / n, y: ly, width: lw / n + 0.5, height: 10, fill: colour(v) }, scale);
  }
  stops.forEach((v, i) => { el("text", { x: left + i * lw / 2, y: ly + 24, "text-anchor": ["start", "middle", "end"][i] }, scale).textContent = fixed(v, 2); });
}

// A sweep axis's marginal: the objective's best, mean and worst (over the other axes) at each
// of the axis's values, as three lines over the values in order. The legend is the caller's
// (HTML, so it wraps); the classes m-best, m-mean and m-worst tie them.
export function marginalChart(container, marginal) {
  container.textContent = "";
  const pts = marginal.points;
  const w = 420, h = 160, left = 58, right = 16, top = 10, bottom = 28;
  const svg = el("svg", { class: "marginal-svg", viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": `${marginal.param}: best, mean and worst by value`, "data-values": pts.length }, container);
  if (!pts.length) return;
  const all = pts.flatMap((p) => [p.best, p.mean, p.worst]);
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  const x = (i) => left + 10 + (pts.length > 1 ? i / (pts.length - 1) : 0.5) * (w - left - right - 20);
  const y = (v) => top + (1 - (v - lo) / (hi - lo)) * (h - top - bottom);
  el("line", { class: "axis", x1: left, y1: h - bottom, x2: w - right, y2: h - bottom }, svg);
  el("line", { class: "axis", x1: left, y1: top, x2: left, y2: h - bottom }, svg);
  for (const v of [lo, (lo + hi) / 2, hi]) el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, svg).textContent = compact(v);
  for (const field of ["worst", "mean", "best"]) {
    const d = pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p[field]).toFixed(1)}`).join("");
    el("path", { class: `m-${field}`, d }, svg);
    pts.forEach((p, i) => { el("title", {}, el("circle", { class: `m-${field}`, cx: x(i), cy: y(p[field]), r: field === "mean" ? 3 : 2 }, svg)).textContent = `${marginal.param}=${p.value}: ${field} ${fixed(p[field], 3)} (${p.count} runs)`; });
  }
  const every = Math.ceil(pts.length / 8);
  pts.forEach((p, i) => { if (i % every === 0) el("text", { x: x(i), y: h - 10, "text-anchor": "middle" }, svg).textContent = `${p.value}`; });
}

// One row per walk-forward fold on a time axis: the in-sample window (blue), then the
// out-of-sample window it was judged on (orange). `folds` carry {foldIx, from, cut, to} in
// epoch ms; the winners and scores go in the table beside it (HTML, so nothing is clipped).
export function foldTimeline(container, folds) {
  container.textContent = "";
  const w = 900, row = 26, left = 64, right = 16, h = folds.length * row + 44;
  const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, width: "100%", role: "img", "aria-label": "walk-forward folds on a time axis" }, container);
  svg.setAttribute("data-folds", String(folds.length));
  const t0 = Math.min(...folds.map((f) => f.from)), t1 = Math.max(...folds.map((f) => f.to));
  svg.setAttribute("data-from", String(t0));
  svg.setAttribute("data-to", String(t1));
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (w - left - right);
  folds.forEach((f, i) => {
    const y = 8 + i * row;
    el("text", { x: left - 8, y: y + 14, "text-anchor": "end" }, svg).textContent = `fold ${f.foldIx}`;
    el("title", {}, el("rect", { x: x(f.from), y, width: Math.max(1, x(f.cut) - x(f.from)), height: 18, class: "is" }, svg)).textContent = `fold ${f.foldIx} in-sample ${utc(f.from)} → ${utc(f.cut)}`;
    el("title", {}, el("rect", { x: x(f.cut), y, width: Math.max(1, x(f.to) - x(f.cut)), height: 18, class: "oos" }, svg)).textContent = `fold ${f.foldIx} out-of-sample ${utc(f.cut)} → ${utc(f.to)}`;
  });
  const axisY = 8 + folds.length * row + 4;
  el("line", { class: "axis", x1: left, y1: axisY, x2: w - right, y2: axisY }, svg);
  const ticks = 4;
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + (t1 - t0) * i / ticks;
    el("text", { class: "tick", x: x(t), y: axisY + 16, "text-anchor": i === 0 ? "start" : i === ticks ? "end" : "middle", "data-t": Math.round(t) }, svg).textContent = t1 - t0 > 3 * 86400e3 ? utcDay(t) : utc(t);
  }
}
