// Hash routes: each view module registers its own; main.js starts the router.
import { $, $$, esc, view } from "./dom.js";
import { session } from "./api.js";

const routes = [];
let signIn = () => {};

export function register(pattern, render) { routes.push([pattern, render]); }
export function setSignIn(render) { signIn = render; }

// Navigations so far. A view fetches before it draws, and the user may navigate meanwhile: the
// render left behind must neither draw over the new view nor show its errors there.
let navigations = 0;

// Called by a view before its first await: true while no later navigation has started.
export function stillShown() {
  const mine = navigations;
  return () => mine === navigations;
}

export async function route() {
  const mine = ++navigations;
  if (!session.token) { signIn(); return; }
  $("#nav").hidden = false;
  $("#signout").hidden = false;
  const hash = location.hash || "#/account";
  for (const a of $$("#nav a")) a.classList.toggle("active", hash.startsWith(a.getAttribute("href")));
  for (const [pattern, render] of routes) {
    const m = hash.match(pattern);
    if (m) {
      try { await render(...m.slice(1).map(decodeURIComponent)); } catch (err) {
        if (mine !== navigations) return;  // a later view is showing (a left view's elements are gone)
        if (err.status === 401 && !session.token) return;  // the sign-in form is showing
        view().innerHTML = `<p class="error" role="alert">${esc(err.message)}</p>`;
      }
      return;
    }
  }
  location.hash = "#/account";
}
