// Datasets view: the user's own data, through the same calls as the SDK (create, presigned PUT,
// finalize, poll; cex imports; delete), and a preview of a ready dataset's close.
import { api, showError } from "../lib/api.js";
import { lineChart } from "../lib/charts.js";
import { $, esc, tableWrap, view } from "../lib/dom.js";
import { isoUtc } from "../lib/format.js";
import { poll } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";

function isoHoursAgo(h) {
  const d = new Date(Date.now() - h * 3600e3);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString().slice(0, 16) + "Z";
}

const DATASET_DONE = ["ready", "failed"];

function datasetRows(datasets) {
  if (!datasets.length) return '<tr><td colspan="8" class="muted">no datasets yet</td></tr>';
  return datasets.map((d) => `<tr data-id="${esc(d.datasetId)}">
      <td>${esc(d.name)}</td><td>${esc(d.instrument)}</td>
      <td><span class="pill ${esc(d.status)}">${esc(d.status)}</span></td>
      <td class="cadence">${esc(d.cadence ?? "")}</td><td>${esc(d.rows ?? "")}</td>
      <td>${esc(d.gaps ?? "")}${d.largestGapSteps ? ` (largest ${esc(d.largestGapSteps)} steps)` : ""}</td>
      <td>${esc(isoUtc(d.from))}${d.to ? ` → ${esc(isoUtc(d.to))}` : ""}</td>
      <td class="actions">${d.status === "ready" ? '<button class="secondary preview-dataset">Preview</button> ' : ""}<button class="secondary delete-dataset">Delete</button></td></tr>`).join("");
}

async function datasetsView() {
  const shown = stillShown();
  const { data } = await api("GET", "/datasets");
  view(shown).innerHTML = `
    <section class="card"><h2>Datasets</h2>
      ${tableWrap(`<table id="dataset-table"><thead><tr><th>Name</th><th>Instrument</th><th>Status</th><th>Cadence</th><th>Rows</th><th>Gaps</th><th>Range (UTC)</th><th>Actions</th></tr></thead>
      <tbody>${datasetRows(data.datasets)}</tbody></table>`)}
      <p class="error" id="dataset-list-error" role="alert"></p></section>
    <section class="card" id="preview-card"><h2>Preview</h2>
      <div id="preview-chart" class="muted">Choose “Preview” on a ready dataset to chart its close.</div>
      <p id="preview-note" class="muted"></p><p class="error" id="preview-error" role="alert"></p></section>
    <section class="card"><h2>Upload a file</h2>
      <p class="muted">CSV (gzip or zip too), parquet or lastra with a <code>timestamp</code> and a <code>close</code> column; open, high, low and volume are optional.</p>
      <form id="upload-form" class="row">
        <div><label>Name</label><input name="name" required></div>
        <div><label>Instrument</label><input name="instrument" value="BTC/USDT" required></div>
        <div><label>File</label><input name="file" type="file" required></div>
        <div><button type="submit">Upload</button></div>
      </form>
      <label>Upload progress</label><progress id="upload-progress" max="100" value="0"></progress>
      <p id="upload-status" class="muted" role="status"></p>
      <p class="error" id="upload-error" role="alert"></p></section>
    <section class="card"><h2>Import from an exchange</h2>
      <form id="import-form" class="row">
        <div><label>Name</label><input name="name" required></div>
        <div><label>Exchange</label><input name="exchange" value="sim" required></div>
        <div><label>Instrument</label><input name="instrument" value="BTC/USDT" required></div>
        <div><label>Source data</label><select name="dataType"><option>ticker</option><option>klines</option></select></div>
        <div><label>Cadence (bars to build)</label><input name="cadence" placeholder="1m"></div>
        <div><label>From (UTC)</label><input name="from" value="${isoHoursAgo(8)}"></div>
        <div><label>To (UTC)</label><input name="to" value="${isoHoursAgo(2)}"></div>
        <div><button type="submit">Import</button></div>
      </form>
      <p id="import-status" class="muted" role="status"></p>
      <p class="error" id="import-error" role="alert"></p></section>`;
  $("#upload-form").addEventListener("submit", (event) => { event.preventDefault(); uploadDataset(event.target); });
  $("#import-form").addEventListener("submit", (event) => { event.preventDefault(); importDataset(event.target); });
  $("#dataset-table").addEventListener("click", async (event) => {
    const preview = event.target.closest(".preview-dataset");
    if (preview) { previewDataset(preview.closest("tr").dataset.id); return; }
    const button = event.target.closest(".delete-dataset");
    if (!button) return;
    const id = button.closest("tr").dataset.id;
    try {
      await api("DELETE", `/datasets/${encodeURIComponent(id)}`);
      datasetsView();
    } catch (err) { showError("#dataset-list-error", err); }
  });
}

// The current version's close, downsampled by the service with its extremes kept.
async function previewDataset(id) {
  $("#preview-error").textContent = "";
  try {
    const { data } = await api("GET", `/datasets/${encodeURIComponent(id)}/preview?points=1200`);
    const name = $(`#dataset-table tr[data-id="${CSS.escape(id)}"] td`)?.textContent || id;
    lineChart($("#preview-chart"), { xs: data.timestamps, ys: data.values, label: `close of dataset ${name}` });
    $("#preview-chart").dataset.dataset = id;
    $("#preview-note").textContent = `${name}: close of ${data.rows} rows at ${data.cadence}` + (data.downsampled ? `, ${data.values.length} points shown (first, lowest, highest and last of each stretch)` : "") + ". Drag to zoom, double click to reset.";
  } catch (err) { showError("#preview-error", err); }
}

// The presigned PUT the SDK sends: no credentials, no content type, just the bytes.
function putWithProgress(url, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(); return; }
      let message = `the upload was refused (HTTP ${xhr.status})`;
      try { message = JSON.parse(xhr.responseText).message || message; } catch (_) { /* S3 answers XML */ }
      reject(new Error(message));
    };
    xhr.onerror = () => reject(new Error("the upload could not reach the store; check the connection and retry"));
    xhr.send(file);
  });
}

async function uploadDataset(form) {
  const error = $("#upload-error"), status = $("#upload-status"), progress = $("#upload-progress");
  error.textContent = "";
  progress.value = 0;
  const file = form.file.files[0];
  try {
    status.textContent = "creating the dataset…";
    const { data: created } = await api("POST", "/datasets", { name: form.name.value.trim(), instrument: form.instrument.value.trim() });
    status.textContent = `uploading ${file.name}…`;
    await putWithProgress(created.upload.url, file, (fraction) => { progress.value = Math.round(fraction * 100); });
    const base = `/datasets/${encodeURIComponent(created.datasetId)}/uploads/${encodeURIComponent(created.uploadId)}`;
    await api("POST", `${base}/finalize`);
    const state = await pollDataset(base, status, "ingesting");
    if (state.status === "failed") throw new Error(state.error || "the ingest failed");
    const v = state.version || {};
    status.textContent = `ready: ${v.rows} rows at ${v.cadence}, ${v.gaps} gaps`;
    await refreshDatasetTable();
  } catch (err) {
    showError(error, err);
    status.textContent = "";
  }
}

async function importDataset(form) {
  const error = $("#import-error"), status = $("#import-status");
  error.textContent = "";
  const body = {
    name: form.name.value.trim(), instrument: form.instrument.value.trim(), type: "cex",
    from: form.from.value.trim(), to: form.to.value.trim(),
    cex: { exchange: form.exchange.value.trim(), segment: "spot", dataType: form.dataType.value },
  };
  if (form.cadence.value.trim()) body.cadence = form.cadence.value.trim();
  try {
    status.textContent = "importing…";
    const { data: created } = await api("POST", "/datasets/imports", body);
    const path = `/datasets/${encodeURIComponent(created.datasetId)}/imports/${encodeURIComponent(created.importId)}`;
    const state = await pollDataset(path, status, "importing");
    if (state.status === "failed") throw new Error(state.error || "the import failed");
    status.textContent = `ready: ${state.version.rows} rows at ${state.version.cadence}`;
    await refreshDatasetTable();
  } catch (err) {
    showError(error, err);
    status.textContent = "";
  }
}

async function pollDataset(path, status, doing) {
  const done = await poll(async () => {
    const { data } = await api("GET", path);
    if (DATASET_DONE.includes(data.status)) return { done: true, value: data };
    status.textContent = `${doing} (${data.status})…`;
    return { done: false };
  }, { every: 500, limit: 600 });
  if (!done) throw new Error("still not ready after five minutes; look again later");
  return done;
}

async function refreshDatasetTable() {
  const { data } = await api("GET", "/datasets");
  $("#dataset-table tbody").innerHTML = datasetRows(data.datasets);
}

register(/^#\/datasets$/, datasetsView);
