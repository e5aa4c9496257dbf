// The backtestd dashboard: a single page over the public /v1 API (nothing else), as ES
// modules. lib/ holds what every view shares (API calls, polling, formatting, charts, code
// colouring); each views/ module renders one page and registers its route.
import { session, whenRefused } from "./lib/api.js";
import { $ } from "./lib/dom.js";
import { linkLabels } from "./lib/a11y.js";
import { route, setSignIn } from "./lib/router.js";
import { signInView } from "./views/account.js";
import "./views/market.js";
import "./views/strategies.js";
import "./views/backtests.js";
import "./views/result.js";
import "./views/sweeps.js";
import "./views/sweep.js";
import "./views/live.js";
import "./views/live_run.js";
import "./views/datasets.js";

setSignIn(signInView);
whenRefused(signInView);
linkLabels();
window.addEventListener("hashchange", route);
$("#signout").addEventListener("click", () => { session.token = null; sessionStorage.clear(); location.hash = ""; route(); });
route();
