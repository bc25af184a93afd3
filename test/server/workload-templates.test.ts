/* eslint-disable @typescript-eslint/no-explicit-any */
// Workload templates through the API (WorkloadTemplateService in server/templates/workload-templates.ts, served
// under /templates).
import { describe, expect, it } from "vitest";
import { WorkloadTemplate } from "../../api/index.ts";
import { call, expectError, OTHER_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";

const s = useTestServer({ each: "reset" });

describe("workload templates", () => {
  const manifest = { type: "RENTAL", name: "web", image: "nginx:1.27", resource_name: "gpu-rental-small" };

  it("creates a PRIVATE template, reads it in full, lists with visibility, patches and deletes it", async () => {
    const c = await call(s, "POST", "/orgs/demo/templates", { name: "web", type: "RENTAL", manifest });
    expect(c.status).toBe(201);
    expect(Object.keys(c.body)).toEqual(["uid"]);
    const t = WorkloadTemplate.parse((await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`)).body);
    expect(t).toMatchObject({ visibility: "PRIVATE", manifest, description: "" });
    expect(t.created_at).toEqual(expect.any(String));
    const all = (await call(s, "GET", "/orgs/demo/templates")).body.items.map((x: any) => x.visibility);
    expect(all.sort()).toEqual(["PRIVATE", "PUBLIC"]);
    expect((await call(s, "GET", "/orgs/demo/templates?visibility=PUBLIC")).body.items).toHaveLength(1);
    expect(
      (await call(s, "GET", "/orgs/demo/templates?visibility=PRIVATE")).body.items.map((x: any) => x.uid),
    ).toEqual([c.body.uid]);
    expect((await call(s, "GET", "/orgs/demo/templates?type=VM")).body.items).toEqual([]);
    const p = await call(s, "PATCH", `/orgs/demo/templates/${c.body.uid}`, {
      description: "d",
      manifest: { ...manifest, image: "nginx:1.28" },
    });
    expect(p.body).toMatchObject({ description: "d", manifest: { image: "nginx:1.28" } });
    expectError(
      await call(s, "GET", `/orgs/other/templates/${c.body.uid}`, undefined, { token: OTHER_TOKEN }),
      404,
      "TEMPLATE_NOT_FOUND",
    );
    expect((await call(s, "DELETE", `/orgs/demo/templates/${c.body.uid}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`), 404, "TEMPLATE_NOT_FOUND");
  });

  it("validates the manifest as a create body whose type equals type, naming manifest.<field>", async () => {
    expect(
      expectError(
        await call(s, "POST", "/orgs/demo/templates", { name: "t", type: "VM", manifest }),
        400,
        "TEMPLATE_MANIFEST_INVALID",
      ),
    ).toContain("manifest.type");
    const bad = await call(s, "POST", "/orgs/demo/templates", {
      name: "t",
      type: "RENTAL",
      manifest: { ...manifest, name: "Bad Name" },
    });
    expect(expectError(bad, 400, "TEMPLATE_MANIFEST_INVALID")).toContain("manifest.name");
    const vmNoPass = await call(s, "POST", "/orgs/demo/templates", {
      name: "t",
      type: "VM",
      manifest: { type: "VM", name: "v", image: "ubuntu-22.04", resource_name: "vm-standard" },
    });
    expect(expectError(vmNoPass, 400, "TEMPLATE_MANIFEST_INVALID")).toContain("manifest.vm_config.password");
    expectError(
      await call(s, "POST", "/orgs/demo/templates", { type: "RENTAL", manifest }),
      400,
      "TEMPLATE_INVALID",
    );
    const t = (await call(s, "POST", "/orgs/demo/templates", { name: "t", type: "RENTAL", manifest })).body
      .uid;
    expectError(
      await call(s, "PATCH", `/orgs/demo/templates/${t}`, {
        manifest: { ...manifest, ports: [{ port: 1 }] },
      }),
      400,
      "TEMPLATE_MANIFEST_INVALID",
    );
  });

  it("keeps platform PUBLIC templates read-only and passwords out of manifests", async () => {
    expectError(await call(s, "DELETE", "/orgs/demo/templates/wtpl-nginx-public"), 403, "TEMPLATE_READ_ONLY");
    expectError(
      await call(s, "PATCH", "/orgs/demo/templates/wtpl-nginx-public", { name: "x" }),
      403,
      "TEMPLATE_READ_ONLY",
    );
    const c = await call(s, "POST", "/orgs/demo/templates", {
      name: "vm",
      type: "VM",
      manifest: {
        type: "VM",
        name: "v",
        image: "ubuntu-22.04",
        resource_name: "vm-standard",
        vm_config: { password: "hunter22" },
      },
    });
    const g = await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`);
    expect(g.text).not.toContain("hunter22");
  });

  it("pages templates", async () => {
    for (let i = 0; i < 4; i++)
      await call(s, "POST", "/orgs/demo/templates", { name: `t${i}`, type: "RENTAL", manifest });
    const p1 = await call(s, "GET", "/orgs/demo/templates?limit=2");
    const p2 = await call(s, "GET", `/orgs/demo/templates?limit=2&cursor=${p1.body.next_cursor}`);
    const p3 = await call(s, "GET", `/orgs/demo/templates?limit=2&cursor=${p2.body.next_cursor}`);
    expect([...p1.body.items, ...p2.body.items, ...p3.body.items]).toHaveLength(5);
    expect(p3.body.next_cursor).toBeNull();
  });
});
