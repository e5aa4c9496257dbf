// Market data: the instruments of an exchange with their coverage, and one hour's price.
import { API, api, fetchText, hourPath, showError } from "../lib/api.js";
import { lineChart } from "../lib/charts.js";
import { priceSeries } from "../lib/csv.js";
import { $, esc, tableWrap, view } from "../lib/dom.js";
import { register, stillShown } from "../lib/router.js";

// Coverage "to" is the end of the last hour with data; the last hour starts an hour earlier.
const lastHourOf = (window) => (window?.to ? new Date(Date.parse(window.to) - 3600e3).toISOString().slice(0, 13) : "");
const downloadName = (i) => (i.settle ? `${i.id}:${i.settle}` : i.id);

async function marketView() {
  const shown = stillShown();
  const { data: exchanges } = await api("GET", "/exchanges");
  view(shown).innerHTML = `<section class="card"><h2>Market data</h2>
    <div class="row"><div><label for="exchange">Exchange</label><select id="exchange">${exchanges.map((x) => `<option value="${esc(x.id)}">${esc(x.name)} (${esc(x.id)})</option>`).join("")}</select></div>
    <div><label for="segment">Segment</label><select id="segment"><option>spot</option><option>futures</option></select></div></div>
    <div id="instruments"></div></section>
    <section class="card"><h2>Price of one hour</h2>
      <form id="hour-form" class="row" novalidate>
        <div><label>Instrument</label><select name="instrument"></select></div>
        <div><label>Data</label><select name="kind"><option value="tickers">tickers (last trade price)</option><option value="klines">klines (close)</option></select></div>
        <div><label>Day (UTC)</label><input type="date" name="day" required></div>
        <div><label>Hour (UTC)</label><select name="hour">${Array.from({ length: 24 }, (_, h) => `<option>${String(h).padStart(2, "0")}</option>`).join("")}</select></div>
        <div><button type="submit">Show</button></div>
      </form>
      <p id="hour-coverage" class="muted"></p>
      <div id="hour-chart"></div>
      <p id="hour-downloads" class="wrap"></p>
      <p class="error" id="hour-error" role="alert"></p></section>`;
  let instruments = [];
  const form = $("#hour-form");
  const picked = () => instruments.find((i) => i.id === form.instrument.value);
  const showCoverage = () => {
    const i = picked(), window = i?.coverage?.[form.kind.value];
    const last = lastHourOf(window);
    $("#hour-coverage").textContent = window ? `${form.kind.value} of ${i.id}: ${window.from.slice(0, 13)} to ${last} (UTC hours)` : "no coverage for this kind";
    form.day.min = window ? window.from.slice(0, 10) : "";
    form.day.max = last.slice(0, 10);
    if (last) { form.day.value = last.slice(0, 10); form.hour.value = last.slice(11, 13); }
  };
  const load = async () => {
    const ex = $("#exchange").value, seg = $("#segment").value;
    try {
      const { data } = await api("GET", `/exchange/${encodeURIComponent(ex)}/${seg}/instruments`);
      instruments = data.data;
      $("#instruments").innerHTML = tableWrap(`<table id="instrument-table" class="nowrap"><thead><tr><th>Instrument</th><th>Tickers</th><th>Klines</th><th>Last price</th><th>Download (latest hour)</th></tr></thead><tbody>${
        data.data.map((i) => {
          const hour = lastHourOf(i.coverage?.tickers);
          const link = (kind, fmt) => `<a href="${API}${hourPath(ex, kind, downloadName(i), hour, fmt)}">${kind} ${fmt}</a>`;
          return `<tr><td>${esc(i.id)}</td><td>${esc(i.coverage?.tickers?.from?.slice(0, 10) || "")} → ${esc(i.coverage?.tickers?.to?.slice(0, 13) || "")}</td><td>${esc(i.coverage?.klines?.from?.slice(0, 10) || "")} → ${esc(i.coverage?.klines?.to?.slice(0, 13) || "")}</td><td>${i.lastPrice ?? ""}</td><td>${hour ? [link("tickers", "lastra"), link("tickers", "parquet"), link("klines", "parquet")].join(" · ") : ""}</td></tr>`;
        }).join("")}</tbody></table>`);
      form.instrument.innerHTML = instruments.map((i) => `<option>${esc(i.id)}</option>`).join("");
      showCoverage();
    } catch (err) { showError("#instruments", err); }
  };
  $("#exchange").addEventListener("change", load);
  $("#segment").addEventListener("change", load);
  form.instrument.addEventListener("change", showCoverage);
  form.kind.addEventListener("change", showCoverage);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#hour-error").textContent = "";
    const i = picked(), kind = form.kind.value, window = i?.coverage?.[kind];
    const hour = `${form.day.value}T${form.hour.value}`;
    if (!window || hour < window.from.slice(0, 13) || hour > lastHourOf(window)) {
      $("#hour-error").textContent = `${hour} is outside the ${kind} coverage of ${i ? i.id : "this instrument"}; pick an hour between ${window ? window.from.slice(0, 13) : "?"} and ${lastHourOf(window) || "?"}`;
      return;
    }
    const ex = $("#exchange").value, name = downloadName(i);
    $("#hour-downloads").innerHTML = `Download ${esc(hour)}: ${["lastra", "parquet", "csv"].map((fmt) => `<a href="${API}${hourPath(ex, kind, name, hour, fmt)}">${kind} ${fmt}</a>`).join(" · ")}`;
    try {
      const [xs, ys] = priceSeries(await fetchText(hourPath(ex, kind, name, hour, "csv")));
      if (!xs.length) { $("#hour-chart").textContent = "This hour has no data."; return; }
      lineChart($("#hour-chart"), { xs, ys, label: `${i.id} ${kind} price, ${hour} UTC` });
    } catch (err) { showError("#hour-error", err); }
  });
  await load();
}

register(/^#\/market$/, marketView);
