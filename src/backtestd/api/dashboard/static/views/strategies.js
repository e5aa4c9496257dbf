// Strategies: the list (by name), registration with compile errors at their lines, one
// strategy's source, validation and deletion.
import { api, session, showError } from "../lib/api.js";
import { $, $$, esc, tableWrap, view } from "../lib/dom.js";
import { isoUtc } from "../lib/format.js";
import { errorLinesOf, highlight } from "../lib/highlight.js";
import { poll } from "../lib/poll.js";
import { register, stillShown } from "../lib/router.js";

// "EMA cross" and a short id beside it: the name for people, the id to tell registrations apart.
export const strategyLabel = (id, name) => (name ? `${name} (${id.slice(0, 8)}…)` : id);

async function strategiesView() {
  const shown = stillShown();
  const { data } = await api("GET", "/strategies");
  view(shown).innerHTML = `
    <section class="card"><h2>Strategies</h2>
      ${tableWrap(`<table id="strategy-table"><thead><tr><th>Name</th><th>Id</th><th>Compiled (UTC)</th><th>Sources</th></tr></thead><tbody>
      ${data.strategies.map((s) => `<tr class="clickable" data-id="${esc(s.strategyId)}"><td class="name"><a href="#/strategy/${esc(s.strategyId)}">${esc(s.name || s.strategyId)}</a></td><td><code class="id">${esc(s.strategyId)}</code></td><td>${esc(isoUtc(s.compiledAt))}</td><td>${esc((s.requiredSources || []).join(", "))}</td></tr>`).join("") || '<tr><td colspan="4" class="muted">none yet</td></tr>'}
      </tbody></table>`)}</section>
    <section class="card"><h2>Register a strategy</h2>
      <p class="muted">Java (a class extending a strategy base class) or QTScript (starts with <code>strategy</code>).</p>
      <textarea id="source" class="code" spellcheck="false" aria-label="Strategy source"></textarea>
      <p><button id="register">Register</button></p>
      <div id="register-result"></div>
    </section>`;
  for (const row of $$("#strategy-table tr.clickable")) {
    row.addEventListener("click", () => { location.hash = `#/strategy/${row.dataset.id}`; });
  }
  $("#register").addEventListener("click", async () => {
    const text = $("#source").value;
    const out = $("#register-result");
    try {
      const { data: created } = await api("POST", "/strategy", text, { text: true });
      const props = (created.declaredProperties || []).map((p) => `<li><code>${esc(p.name)}</code> ${esc(p.description || "")} ${p.defaultValue !== undefined ? `(default ${esc(p.defaultValue)})` : ""}</li>`).join("");
      const warnings = (created.warnings || []).map((w) => `<li>${esc(w.message || w)}</li>`).join("");
      out.innerHTML = `<p>Registered <a id="new-strategy" href="#/strategy/${esc(created.strategyId)}">${esc(created.strategyId)}</a></p>${props ? `<ul>${props}</ul>` : ""}${warnings ? `<p>Warnings:</p><ul>${warnings}</ul>` : ""}`;
    } catch (err) {
      if (err.status === 401 && !session.token) return;
      const lines = errorLinesOf(err.message);
      out.innerHTML = `<p class="error" id="compile-error">${esc(err.message)}</p><pre class="code" tabindex="0" role="region" aria-label="submitted source with the error lines marked">${highlight(text, lines)}</pre>`;
    }
  });
}

async function strategyView(id) {
  const shown = stillShown();
  const [{ data: state }, { data: code }] = await Promise.all([api("GET", `/strategy/${id}`), api("GET", `/strategy/${id}/code`)]);
  const notices = (state.notices || []).map((n) => `<li>${esc(n.level || "")} ${esc(n.message || "")}</li>`).join("");
  const lines = errorLinesOf(notices);
  const props = (state.declaredProperties || []).map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.description || "")}</td><td>${esc(p.defaultValue ?? "")}</td><td>${p.min != null ? `${esc(p.min)} to ${esc(p.max)} step ${esc(p.step)}` : ""}</td></tr>`).join("");
  view(shown).innerHTML = `<section class="card"><h2><span id="strategy-name">${esc(state.name || id)}</span> <span class="pill ${esc(state.validation)}" id="validation">${esc(state.validation)}</span></h2>
    <p class="muted wrap">Id <code>${esc(id)}</code>, compiled ${esc(isoUtc(state.compiledAt))} UTC</p>
    <p><button id="validate">Validate</button> <button class="danger" id="delete">Delete</button></p>
    <p class="error" id="strategy-error" role="alert"></p>
    ${notices ? `<ul id="notices">${notices}</ul>` : ""}
    ${props ? `<h3>Properties</h3>${tableWrap(`<table id="properties"><thead><tr><th>Name</th><th>Description</th><th>Default</th><th>Declared range</th></tr></thead><tbody>${props}</tbody></table>`)}` : ""}
    <h3>Source</h3>
    <pre class="code" id="code" tabindex="0" role="region" aria-label="source of ${esc(state.name || id)}">${highlight(code.code, lines)}</pre></section>`;
  $("#validate").addEventListener("click", async () => {
    try {
      await api("POST", `/strategy/${id}/validate`);
      await poll(async () => {
        const { data } = await api("GET", `/strategy/${id}`);
        return { done: data.validation !== "pending" };
      }, { every: 500, limit: 120 });
      await strategyView(id);
    } catch (err) { showError("#strategy-error", err); }
  });
  $("#delete").addEventListener("click", async () => {
    if (!confirm(`Delete strategy ${state.name || id}?`)) return;
    try {
      await api("DELETE", `/strategy/${id}`);
      location.hash = "#/strategies";
    } catch (err) { showError("#strategy-error", err); }
  });
}

register(/^#\/strategies$/, strategiesView);
register(/^#\/strategy\/([^/]+)$/, strategyView);
