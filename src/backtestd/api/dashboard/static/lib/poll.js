// The one polling loop of the page: call `step` until it says it is done, the view it draws
// into is gone, or the time is up. Every "wait for a job" in the dashboard goes through here.
import { sleep } from "./dom.js";

// poll(step, {every, alive, limit}) -> the value `step` returned with done=true, or undefined.
// `step()` returns {done, value}; a thrown error ends the loop (the caller shows it).
export async function poll(step, { every = 1000, alive = () => true, limit = 600 } = {}) {
  for (let i = 0; i < limit && alive(); i++) {
    const { done, value } = await step(i);
    if (done) return value;
    await sleep(every);
  }
  return undefined;
}

// While `node` is in the page.
export const whileShown = (node) => () => document.body.contains(node);

export const TERMINAL = ["Completed", "Failed", "Aborted"];
