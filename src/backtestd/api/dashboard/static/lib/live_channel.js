// One live run's signals as they are produced, over the service's Centrifugo-protocol channel
// (`/connection/websocket`, JSON), with the official centrifuge client served from this
// dashboard (vendor/centrifuge: no CDN). The connection token comes from POST /live/token and is
// renewed by the client itself through getToken before it expires; nothing is replayed on
// subscribe, so the page shows only what is pushed while it watches (REST has the record).
import { Centrifuge, UnauthorizedError } from "../vendor/centrifuge/centrifuge.js";
import { api } from "./api.js";

// The channel on this page's own origin (the dashboard is served by the API it talks to).
export function channelUrl(loc = window.location) {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/connection/websocket`;
}

// A refused token ends the connection for good (the client stops retrying); anything else is
// thrown as it is, and the client tries again with its back-off.
async function connectionToken() {
  try {
    return (await api("POST", "/live/token")).data.token;
  } catch (err) {
    if (err.status === 401 || err.status === 403) throw new UnauthorizedError(err.message);
    throw err;
  }
}

// watchRun(runId, {onSignal(signal, offset), onState(kind, sentence)}) -> {stop()}.
// `kind` is one of connecting, connected, subscribed, disconnected, unsubscribed, error; the
// sentence says what happened in words, with the server's code and reason when it gave them.
export function watchRun(runId, { onSignal, onState }) {
  const client = new Centrifuge(channelUrl(), { getToken: connectionToken, name: "backtestd-dashboard" });
  const channel = `sig:${runId}`;
  const sub = client.newSubscription(channel);
  let stopped = false;
  const because = (ctx) => (ctx && ctx.reason ? ` (${ctx.reason}${ctx.code !== undefined ? `, code ${ctx.code}` : ""})` : "");

  client.on("connecting", (ctx) => onState("connecting", `connecting to the live channel…${because(ctx)}`));
  client.on("connected", () => onState("connected", "connected; subscribing to the run's signals…"));
  client.on("disconnected", (ctx) => {
    if (!stopped) onState("disconnected", `the live channel closed${because(ctx)}; reload the page to connect again`);
  });
  client.on("error", (ctx) => onState("error", `live channel: ${ctx.error?.message || "error"}`));
  sub.on("subscribing", (ctx) => { if (ctx.code !== 0) onState("connecting", `subscribing again…${because(ctx)}`); });
  sub.on("subscribed", () => onState("subscribed", `watching ${channel}: each signal appears here as the run produces it`));
  sub.on("unsubscribed", (ctx) => {
    if (!stopped) onState("unsubscribed", `the server ended the subscription${because(ctx)}`);
  });
  sub.on("error", (ctx) => onState("error", `subscription: ${ctx.error?.message || "error"}${ctx.error?.code ? ` (code ${ctx.error.code})` : ""}`));
  sub.on("publication", (ctx) => onSignal(ctx.data, ctx.offset));

  sub.subscribe();
  client.connect();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      client.disconnect();
    },
  };
}
