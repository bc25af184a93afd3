/**
 * The stack's `pulumi:autonaming` through the native plugin and the real engine: per resource
 * type, `verbatim` (the logical name as it is), a pattern (`${stack}-${name}`), `disabled`
 * (name required), and the provider's default (the logical name and a random suffix). Names are
 * chosen once: a later change of the configuration leaves existing names alone, and a name the
 * service's rule would refuse fails the preview with the rule.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { nativeStack } from "../../helpers/native.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { EMPTY_ORG, failureOf, liveResources } from "../../helpers/stacks.ts";
import * as cws from "../../../sdk/native/index.ts";

const resourceKey = (type: string, key: string) =>
  `pulumi:autonaming.providers.cws.resources["cws:index:${type}"].${key}`;

describe("pulumi:autonaming (native plugin)", () => {
  let server: TestServer;
  let s: OfflineStack | undefined;
  beforeAll(async () => {
    server = await startTestServer({ provisionDelayMs: 20 });
  });
  afterAll(async () => {
    await s?.cleanup();
    await server?.close();
  });

  it(
    "verbatim, pattern, disabled and the default, each per resource type; names kept; bad names fail preview",
    {
      timeout: 300_000,
    },
    async () => {
      s = await nativeStack(server, "autonaming", async () => {
        const config = new pulumi.Config();
        const key = new cws.SshKey("deploy", { publicKey: sshKey(91) });
        const data = new cws.Volume("data", { sizeInMb: 128, resourceName: "gpu-rental-small" });
        const web = new cws.Workload("web", {
          type: "RENTAL",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
        });
        const tpl = new cws.WorkloadTemplate("tpl", {
          name: "tpl-explicit",
          type: "RENTAL",
          manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
        });
        // One more resource, to see how a new one is named under the configuration of then.
        if (config.get("more") === "template")
          new cws.WorkloadTemplate("unnamed", {
            type: "RENTAL",
            manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
          });
        if (config.get("more") === "workload")
          new cws.Workload("api", { type: "RENTAL", image: "nginx:1.27", resourceName: "gpu-rental-small" });
        return { names: pulumi.all({ key: key.name, data: data.name, web: web.name, tpl: tpl.name }) };
      });
      await s.stack.setConfig(resourceKey("Volume", "mode"), { value: "verbatim" }, true);
      await s.stack.setConfig(resourceKey("SshKey", "pattern"), { value: "${stack}-${name}" }, true);
      await s.stack.setConfig(resourceKey("WorkloadTemplate", "mode"), { value: "disabled" }, true);

      const up = await s.stack.up();
      const names = up.outputs.names!.value as Record<string, string>;
      expect(names).toEqual({
        key: "dev-deploy", // ${stack}-${name}, the stack being dev
        data: "data", // verbatim
        web: expect.stringMatching(/^web-[0-9a-f]{7}$/), // the provider's default
        tpl: "tpl-explicit", // disabled: the program names it
      });
      const live = await liveResources(server);
      expect(live.ssh_keys.map((k) => k.name)).toEqual(["dev-deploy"]);
      expect(live.volumes.map((v) => v.name)).toEqual(["data"]);
      expect(live.workloads.map((w) => w.name)).toEqual([names.web]);

      // A pattern for workloads now: the existing one keeps its name, so nothing changes.
      await s.stack.setConfig(
        resourceKey("Workload", "pattern"),
        { value: "${stack}-${name}-in-a-long-review-stack-name" },
        true,
      );
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });

      // A new resource whose type turns auto-naming off, then one whose pattern is too long.
      await s.stack.setConfig("more", { value: "template" });
      expect((await failureOf(s.stack.preview()))?.message).toMatch(
        /unnamed.*name is required: the stack's pulumi:autonaming turns auto-naming off \(mode disabled\)/,
      );
      await s.stack.setConfig("more", { value: "workload" });
      expect((await failureOf(s.stack.preview()))?.message).toMatch(
        /the name \\?"dev-api-in-a-long-review-stack-name\\?" that the stack's pulumi:autonaming gives breaks the workload name rule: 1-32 characters of lowercase letters, digits and hyphens/,
      );
      await s.stack.setConfig("more", { value: "" });
      expect(await liveResources(server)).toMatchObject({ workloads: [{ name: names.web }] });

      await s.stack.destroy();
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
  );
});
