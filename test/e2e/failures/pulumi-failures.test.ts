/**
 * When an up fails, the error says why, through the real engine and the Automation API, for the
 * dynamic provider and the native plugin: one up of five workloads, each failing its own staged
 * way (staged.ts); the up's output names each failing event and its last log line, holds no
 * planted secret (nor does the state), and the stack keeps every workload as partial state.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { admin } from "../../helpers/http.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, failureOf, liveResources, stateAsStored } from "../../helpers/stacks.ts";
import {
  ENV_SECRET,
  expectDiagnosed,
  NEVER_READY_TIMEOUT_SEC,
  PLANTED,
  REGISTRY_PASSWORD,
  stage,
  stagedCases,
  VM_PASSWORD,
} from "./staged.ts";

/** One up of five failing workloads (the longest waits NEVER_READY_TIMEOUT_SEC) on a busy machine. */
const UP_MS = 240_000;

let server: TestServer;
const stacks: OfflineStack[] = [];
beforeAll(async () => {
  server = await startTestServer({ provisionDelayMs: 50 });
});
afterAll(async () => {
  for (const s of stacks) await s.cleanup();
  await server?.close();
});

interface StateResource {
  type: string;
  id?: string;
  urn: string;
  outputs?: Record<string, unknown>;
}

describe.each(FRONT_ENDS)("a failed up through the $name front end", (fe) => {
  it(
    "says each workload's failing event and last log line, leaks no secret, keeps every workload",
    { timeout: UP_MS },
    async () => {
      const cases = stagedCases(`up-${fe.name}`);
      await stage(server, cases);
      const { Workload } = fe.sdk;
      const rental = { type: "RENTAL" as const, image: "nginx:1.27", resourceName: "cpu-rental-small" };
      const s = await cwsStack(
        server,
        `failures-${fe.name}`,
        async () => {
          const ws = [
            new Workload("pull", {
              ...rental,
              name: cases.pull!.name,
              image: "ghcr.io/acme/api:9.9",
              registryAuth: { server: "ghcr.io", username: "ci", password: pulumi.secret(REGISTRY_PASSWORD) },
            }),
            new Workload("exit", {
              ...rental,
              name: cases.exit!.name,
              envs: [
                { name: "DB_PASSWORD", value: pulumi.secret(ENV_SECRET) },
                { name: "MODE", value: "production" },
              ],
            }),
            new Workload("loop", { ...rental, name: cases.loop!.name }),
            new Workload("vm", {
              type: "VM",
              name: cases.vm!.name,
              image: "ubuntu-22.04",
              resourceName: "vm-standard",
              vmConfig: { password: pulumi.secret(VM_PASSWORD) },
            }),
            new Workload("slow", {
              ...rental,
              name: cases.slow!.name,
              readyTimeoutSec: NEVER_READY_TIMEOUT_SEC,
            }),
          ];
          return { uids: ws.map((w) => w.uid) };
        },
        {},
        fe.env,
      );
      stacks.push(s);
      let printed = "";
      const err = await failureOf(s.stack.up({ onOutput: (o) => (printed += o) }));
      expect(err, "the up should fail").toBeDefined();
      const output = `${printed}\n${err!.message}`;
      expectDiagnosed(output, cases);

      // The same partial state as before: every workload kept, with its uid and its status.
      const state = await s.stack.exportStack();
      const kept = (state.deployment.resources as StateResource[]).filter((r) => r.type.endsWith("Workload"));
      expect(kept).toHaveLength(5);
      const live = await liveResources(server);
      for (const [key, c] of Object.entries(cases)) {
        const r = kept.find((k) => k.urn.endsWith(`::${key}`));
        const w = live.workloads.find((x) => x.name === c.name);
        expect(r?.id, key).toBe(w?.uid);
        expect(w?.state?.status, key).toBe(key === "slow" ? "provisioning" : "error");
      }
      const stored = stateAsStored(s);
      for (const secret of PLANTED) {
        expect(stored.exported).not.toContain(secret);
        expect(stored.files).not.toContain(secret);
      }
      await admin(server, "DELETE", "/orgs/demo/provisioning");
    },
  );
});
