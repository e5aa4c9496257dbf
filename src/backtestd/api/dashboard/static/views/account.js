// Sign-in (an API key exchanged for a JWT kept in this tab) and the account page.
import { API, api, session } from "../lib/api.js";
import { $, bar, esc, tableWrap, view } from "../lib/dom.js";
import { register, route, stillShown } from "../lib/router.js";

export function signInView(message = "") {
  $("#nav").hidden = true;
  $("#signout").hidden = true;
  $("#who").textContent = "";
  view().innerHTML = `
    <section class="card narrow">
      <h2>Sign in</h2>
      <p class="muted">Paste an API key (create one with <code>backtestd apikey create --user NAME</code>).
      It is exchanged for a short-lived token kept in this tab only.</p>
      <form id="signin"><label for="apikey">API key</label>
      <input id="apikey" type="password" autocomplete="off" required>
      <p><button type="submit">Sign in</button></p><p id="signin-error" class="error" role="alert">${esc(message)}</p></form>
    </section>`;
  $("#signin").addEventListener("submit", async (e) => {
    e.preventDefault();
    const response = await fetch(`${API}/auth/token`, { method: "POST", headers: { "X-API-Key": $("#apikey").value.trim() } });
    const body = await response.json();
    if (!response.ok) { $("#signin-error").textContent = body.message || `HTTP ${response.status}`; return; }
    session.token = body.access_token;
    // A new address routes through its hashchange event; routing here too would draw it twice.
    if (!location.hash || location.hash === "#/") location.hash = "#/account";
    else route();
  });
}

const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;

async function accountView() {
  const shown = stillShown();
  const [{ data: account }, { data: usage }] = await Promise.all([api("GET", "/account"), api("GET", "/account/usage")]);
  $("#who").textContent = `${account.userId} · ${account.tier}`;
  view(shown).innerHTML = `
    <section class="card"><h2>Account <span class="pill" id="tier">${esc(account.tier)}</span></h2>
      ${tableWrap(`<table><tbody>
        <tr><th>Storage</th><td>${mib(usage.storageBytesUsed)} of ${mib(account.maxTotalStorageBytes)}</td><td>${bar(usage.storageBytesUsed, account.maxTotalStorageBytes)}</td></tr>
        <tr><th>Datasets</th><td>${usage.datasetsUsed} of ${account.maxDatasets}</td><td>${bar(usage.datasetsUsed, account.maxDatasets)}</td></tr>
        <tr><th>Strategies</th><td>${usage.strategiesUsed} (${mib(usage.strategyBytesUsed)})</td><td></td></tr>
        <tr><th>Signals</th><td>${usage.signalsUsed} (${mib(usage.signalBytesUsed)})</td><td></td></tr>
      </tbody></table>`)}
    </section>
    <section class="card"><h2>Limits</h2>${tableWrap(`<table><tbody>
      <tr><th>Concurrent executions and sweeps</th><td id="max-execute">${account.maxExecute}</td></tr>
      <tr><th>Backtest range on own datasets</th><td>${account.maxRangeDays} days</td></tr>
      <tr><th>Full-grid sweep size</th><td>${account.maxSweepCartesian} combinations</td></tr>
      <tr><th>One import range</th><td>${account.maxImportRangeHours} hours</td></tr>
      <tr><th>One dataset version</th><td>${mib(account.maxDatasetBytes)}</td></tr>
    </tbody></table>`)}</section>`;
}

register(/^#\/account$/, accountView);
