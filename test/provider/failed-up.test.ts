// The core's waits for running (provider/core/wait.ts) through the resource modules: progress on
// the status line, and a failed wait's error (kept as partial state) with the events and log lines,
// every secret of the inputs redacted.
import { describe, expect, it } from "vitest";
import { secretValues } from "../../provider/core/wait.ts";
import { PartialStateError, type Context } from "../../provider/core/types.ts";
import { resourceModule } from "../../provider/registry.ts";
import { admin, DEMO_TOKEN } from "../helpers/http.ts";
import { useProviderContext } from "../helpers/provider-context.ts";

const p = useProviderContext({ provisionDelayMs: 30 });
const Workload = resourceModule("Workload");

const ENV_SECRET = "env-secret-5a6b7c";
const REGISTRY_PW = "registry-pw-8d9e0f";
const VM_PW = "vm-pw-1f2e3d";

describe("secretValues", () => {
  const inputs = {
    envs: [
      { name: "A", value: "plain" },
      { name: "B", value: ENV_SECRET },
    ],
    registryAuth: { server: "r", username: "u", password: REGISTRY_PW },
    vmConfig: { password: VM_PW },
  };
  it("every env value when the front end does not say which are secret", () => {
    expect(secretValues({}, inputs)).toEqual([REGISTRY_PW, VM_PW, "plain", ENV_SECRET]);
  });
  it("only the values marked secret when it does, never a registry's server or username", () => {
    expect(secretValues({ secrets: [ENV_SECRET, "r", "u", REGISTRY_PW] }, inputs)).toEqual([
      REGISTRY_PW,
      VM_PW,
      ENV_SECRET,
      REGISTRY_PW,
    ]);
  });
});

describe("a workload that does not come up", () => {
  it("keeps the workload as partial state with the diagnosis, secrets redacted, progress said on the way", async () => {
    const status: string[] = [];
    const ctx: Context = { client: p.ctx.client, log: p.ctx.log, status: (m) => status.push(m) };
    await admin(p.server, "POST", "/orgs/demo/provisioning", {
      name: "fails-up",
      failure: "exit",
      exit_code: 7,
      delay_ms: 300,
      logs: ["env {env:TOKEN_ENV}", "registry {registry_password}", `api ${DEMO_TOKEN}`, "fatal: bad config"],
    });
    const inputs = Workload.check(
      {},
      {
        type: "RENTAL",
        name: "fails-up",
        image: "ghcr.io/acme/app:2",
        resourceName: "cpu-rental-small",
        envs: [{ name: "TOKEN_ENV", value: ENV_SECRET }],
        registryAuth: { server: "ghcr.io", username: "ci", password: REGISTRY_PW },
        readyTimeoutSec: 30,
      },
    ).inputs;
    let err: unknown;
    try {
      await Workload.create(ctx, inputs);
    } catch (e) {
      err = e;
    }
    if (!(err instanceof PartialStateError)) throw err;
    const e = err as PartialStateError;
    expect(e.properties.status).toBe("error");
    expect(e.message).toMatch(
      /^workload wl-\S+ was registered but did not come up: workload wl-\S+ became error/,
    );
    expect(e.message).toMatch(/ContainerFailed +container fails-up exited with code 7 \(exit code 7\)/);
    expect(e.message).toMatch(/fatal: bad config\n/);
    for (const s of [ENV_SECRET, REGISTRY_PW, DEMO_TOKEN]) expect(e.message).not.toContain(s);
    expect(status.some((m) => /^provisioning 0\/1 ready: (Deploy|Pulling|Pulled|Started): /.test(m))).toBe(
      true,
    );
  });
});

describe("a sandbox that does not come up", () => {
  it("fails its deploy's wait with the events and the log lines, and stays in state", async () => {
    const Sandbox = resourceModule("Sandbox");
    await admin(p.server, "POST", "/orgs/demo/provisioning", {
      name: "box-fails",
      failure: "exit",
      exit_code: 137,
      delay_ms: 100,
      logs: ["agent: out of memory"],
    });
    const inputs = Sandbox.check(
      {},
      { name: "box-fails", template: "tpl-ubuntu-headless", readyTimeoutSec: 30 },
    ).inputs;
    const err = await Sandbox.create(p.ctx, inputs).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof PartialStateError)) throw err;
    expect(err.properties.status).toBe("error");
    expect(err.message).toMatch(/Error +container box-fails exited with code 137 \(exit code 137\)/);
    expect(err.message).toMatch(/agent: out of memory\n/);
  });
});
