// Hash routes: each view module registers its own; main.js starts the router.
import { $, $$, esc, view } from "./dom.js";
import { session } from "./api.js";

const routes = [];
let signIn = () => {};

export function register(pattern, render) { routes.push([pattern, render]); }
export function setSignIn(render) { signIn = render; }

export async function route() {
  if (!session.token) { signIn(); return; }
  $("#nav").hidden = false;
  $("#signout").hidden = false;
  const hash = location.hash || "#/account";
  for (const a of $$("#nav a")) a.classList.toggle("active", hash.startsWith(a.getAttribute("href")));
  for (const [pattern, render] of routes) {
    const m = hash.match(pattern);
    if (m) {
      try { await render(...m.slice(1).map(decodeURIComponent)); } catch (err) {
        if (err.status === 401 && !session.token) return;  // the sign-in form is showing
        view().innerHTML = `<p class="error" role="alert">${esc(err.message)}</p>`;
      }
      return;
    }
  }
  location.hash = "#/account";
}
