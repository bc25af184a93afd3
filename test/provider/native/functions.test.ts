import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../../client/index.ts";
import {
  getBmImages,
  getRegions,
  getSandboxTemplates,
  getVmImages,
  getWorkloadTemplates,
  lookup,
} from "../../../provider/resources/functions/controller.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";

describe("lookups (functions) over the client", () => {
  let server: TestServer;
  let client: CwsClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("filters sandbox templates by status, kind and name, camelCase like the resources", async () => {
    const { templates } = (await getSandboxTemplates(client, { status: "READY", kind: "FRESH" })) as {
      templates: { uid: string; displayName: string; status: string }[];
    };
    expect(templates.map((t) => t.uid)).toContain("tpl-ubuntu-headless");
    for (const t of templates) expect(t.status).toBe("READY");
    expect(templates[0]!.displayName).toEqual(expect.any(String));
    const none = (await getSandboxTemplates(client, { name: "no-such-template" })) as {
      templates: unknown[];
    };
    expect(none.templates).toEqual([]);
  });

  it("lists active regions only when asked, and images by name", async () => {
    const all = (await getRegions(client)) as { regions: { active: boolean }[] };
    const active = (await getRegions(client, { activeOnly: true })) as { regions: { active: boolean }[] };
    expect(all.regions.some((r) => !r.active)).toBe(true);
    expect(active.regions.length).toBeGreaterThan(0);
    expect(active.regions.every((r) => r.active)).toBe(true);
    const vm = (await getVmImages(client, { name: "ubuntu-22.04" })) as { images: { name: string }[] };
    expect(vm.images.map((i) => i.name)).toEqual(["ubuntu-22.04"]);
    const bm = (await getBmImages(client)) as { images: { osFamily: string }[] };
    expect(bm.images[0]!.osFamily).toEqual(expect.any(String));
  });

  it("returns workload templates without their manifests (they may hold passwords)", async () => {
    const { templates } = (await getWorkloadTemplates(client)) as { templates: Record<string, unknown>[] };
    expect(templates.length).toBeGreaterThan(0);
    for (const t of templates) expect(t).not.toHaveProperty("manifest");
  });

  it("refuses an unknown argument or a bad value, naming it", async () => {
    await expect(lookup(client, "getSandboxTemplates", { status: "DONE" })).rejects.toThrow(/^status: /);
    await expect(lookup(client, "getRegions", { region: "x" })).rejects.toThrow(/unknown argument region/);
  });
});
