/**
 * A service that cannot be reached, as a new user meets it with one typo in the endpoint
 * (client/reach.ts): the real `pulumi up` of a YAML program (the native plugin), an Automation API
 * `up` of the dynamic provider, `tofu apply`, `cws adopt` and `cws list` against a closed port each fail with a
 * message naming the endpoint, the cause and the setting to check, after retrying no longer than
 * the unreachable window: the default (20 s) for the YAML program, the setting in each tool's
 * words for the others (5 s, to keep the suite short). The time to failure at the default window,
 * beside the same commands against a live server, is bench/unreachable.ts's. And a service that
 * restarts in the middle of an `up`, back within the window, still lets it complete.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../server/index.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { closedPort } from "../../helpers/ports.ts";
import { waitFor } from "../../helpers/wait.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { cws, dynamicUp, tofuApply, yamlUp, type Ran } from "./unreachable-runs.ts";

/** The window the tests other than the YAML one set, in seconds. */
const SHORT_WINDOW = 5;
const DEFAULT_WINDOW = 20;

let server: TestServer;
let closed: string;
beforeAll(async () => {
  server = await startTestServer();
  closed = `http://127.0.0.1:${await closedPort()}/v3`;
});
afterAll(async () => server?.close());

/** The run failed on the unreachable service after retrying within `window` seconds, naming where to look. */
function expectUnreachable(r: Ran, window: number, setting: string): void {
  expect(r.ok, r.output).toBe(false);
  const said = r.output.replace(/\s+/g, " ");
  expect(said).toContain(`cannot reach the service at ${closed}: connection refused (ECONNREFUSED), after `);
  const waited = Number(/after (\d+) s of retrying/.exec(said)?.[1]);
  expect(waited).toBeGreaterThanOrEqual(window - 2);
  expect(waited).toBeLessThanOrEqual(window);
  expect(said).toContain(`check ${setting} and that the service is running there`);
  expect(said).not.toContain(DEMO_TOKEN);
}

describe("a service that cannot be reached", () => {
  it(
    "fails `pulumi up` of a YAML program after the default window, naming cws:baseUrl",
    { timeout: 180_000 },
    async () => {
      expectUnreachable(
        await yamlUp(server, closed, undefined),
        DEFAULT_WINDOW,
        "cws:baseUrl (or CWS_BASE_URL)",
      );
    },
  );

  it(
    "fails an `up` of the dynamic provider after cws:unreachableTimeoutSec",
    { timeout: 180_000 },
    async () => {
      expectUnreachable(
        await dynamicUp(server, closed, SHORT_WINDOW),
        SHORT_WINDOW,
        "cws:baseUrl (or CWS_BASE_URL)",
      );
    },
  );

  it(
    "fails `tofu apply` after unreachable_timeout_sec, the provider log saying how much longer it tries",
    { timeout: 180_000 },
    async () => {
      const r = await tofuApply(server, closed, SHORT_WINDOW);
      expectUnreachable(r, SHORT_WINDOW, 'the endpoint of the provider "cws" block (or CWS_BASE_URL)');
      expect(r.output).toMatch(/cannot reach the service at .*; retrying for up to \d+ s more/);
    },
  );

  it.each([
    ["adopt", "--format", "pulumi"],
    ["list", "Workload"],
  ])(
    "fails `cws %s` after CWS_UNREACHABLE_TIMEOUT_SEC, saying how much longer it tries",
    { timeout: 60_000 },
    async (...args) => {
      const r = await cws(args, closed, SHORT_WINDOW);
      expectUnreachable(r, SHORT_WINDOW, "--url (or CWS_BASE_URL)");
      expect(r.output).toMatch(
        new RegExp(`cws ${args[0]}: cannot reach the service .*; retrying for up to \\d+ s more`),
      );
    },
  );

  it(
    "lets an `up` complete when the service restarts in the middle and is back within the window",
    { timeout: 180_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "cws-restart-"));
      const port = await closedPort();
      const options = { port, dataDir, provisionDelayMs: 4_000 };
      let running: RunningServer | undefined = await startServer(options);
      const dynamic = FRONT_ENDS.find((f) => f.name === "dynamic")!;
      const s = await cwsStack(running, "unreachable-restart", async () => {
        new dynamic.sdk.Workload("web", {
          type: "RENTAL",
          name: "web",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
        });
      });
      try {
        const up = s.stack.up();
        // Once the workload is created and provisioning, the service goes away for 3 s, then comes back.
        const made = running;
        await waitFor(
          async () => (await liveResources(made)).workloads.length === 1,
          "the workload's create",
          {
            timeoutMs: 120_000,
          },
        );
        await running.close();
        running = undefined;
        await new Promise((r) => setTimeout(r, 3_000));
        running = await startServer(options);
        const result = await up;
        expect(result.summary.result).toBe("succeeded");
        const live = await liveResources(running);
        expect(live.workloads.map((w) => [w.name, w.state?.status])).toEqual([["web", "running"]]);
      } finally {
        await s.stack.destroy().catch(() => undefined);
        await s.cleanup();
        await running?.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
