/**
 * One step of the shared scenario list (scenarios.ts) through a driver: what the admin arranges,
 * the plan, the apply (with what the admin does while it runs), what it printed, what it left in
 * state and on the service, and the plan after it.
 */
import { expect } from "vitest";
import { admin, api } from "../../helpers/http.ts";
import type { TestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import type { AdminAct, Driver, Step } from "./scenarios.ts";

async function act(server: TestServer, a: AdminAct): Promise<void> {
  if ("credits" in a) {
    await admin(server, "POST", "/orgs/demo/credits", { balance: a.credits });
    return;
  }
  for (const [name, capacity] of Object.entries(a.capacity))
    await admin(server, "PUT", `/inventory/${name}`, { capacity });
}

/** Once `name` had `times` registrations refused (deleted), runs `then`; gives up when `done` is set. */
async function whenRefused(
  server: TestServer,
  during: NonNullable<Step["during"]>,
  done: { settled: boolean },
): Promise<void> {
  const path = `/orgs/demo/workloads?status=deleted&name=${during.refused}`;
  while (!done.settled) {
    const { items } = await api<{ items: unknown[] }>(server, "GET", path);
    if (items.length >= during.times) {
      for (const a of during.then) await act(server, a);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the tool printed, its table borders and line breaks as single spaces (words wrapped alike). */
const flat = (text: string) => text.replace(/[\s│]+/g, " ");

export async function runStep(driver: Driver, server: TestServer, step: Step): Promise<void> {
  for (const a of step.arrange ?? []) await act(server, a);
  expect(await driver.plan(step.declare)).toEqual(step.plan);
  const before = step.keeps ? await driver.outputs() : {};

  const done = { settled: false };
  const watching = step.during ? whenRefused(server, step.during, done) : Promise.resolve();
  const applied = driver.apply(step.declare, step.apply).then(
    (printed) => ({ printed, failed: false }),
    (e: Error) => ({ printed: e.message, failed: true }),
  );
  const { printed, failed } = await applied.finally(() => (done.settled = true));
  await watching;

  const said = flat(printed);
  if (!step.fails && failed) throw new Error(`the apply failed:\n${printed}`);
  if (step.fails) expect(failed, "the apply fails").toBe(true);
  for (const re of [...(step.fails ?? []), ...(step.says ?? [])]) expect(said).toMatch(re);

  if (step.outputs || step.keeps) {
    const state = await driver.outputs();
    for (const [name, want] of Object.entries(step.outputs ?? {})) expect(state[name]).toMatchObject(want);
    for (const name of step.keeps ?? []) expect(state[name]?.uid, `${name} kept`).toBe(before[name]?.uid);
  }
  if (step.live) {
    const { workloads } = await liveResources(server);
    const live = Object.fromEntries(
      Object.keys(step.live).map((n) => [n, workloads.filter((w) => w.name === n).length]),
    );
    expect(live).toEqual(step.live);
  }

  if (step.keepFailed) await driver.keepFailed(step.keepFailed);
  const after = await driver.plan(step.declare);
  const unchanged = Object.fromEntries(Object.keys(after).map((k) => [k, "same"]));
  expect(after).toEqual({ ...unchanged, ...step.after });
}
