/**
 * The document `cws serve` serves carries its own test data: its examples are the running
 * server's inventory, images, regions, FRESH sandbox templates, public templates and valid SSH
 * key lines, so that a client with no setup (Schemathesis, which mixes a document's examples into
 * what it generates) makes creates the server accepts. They follow the seed the server runs.
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../../server/openapi/document.ts";
import { DEFAULT_SEED } from "../../server/seed/data.ts";
import { call, expectError } from "../helpers/http.ts";
import { startTestServer, useTestServer, type TestServer } from "../helpers/server.ts";
import { createSshKey, servedDocument } from "./fixtures.ts";

type Body = Record<string, unknown>;
const media = (doc: OpenApiDocument, method: string, path: string) =>
  (
    doc.paths[path]![method]!.requestBody as {
      content: Record<string, { examples?: Record<string, { value: Body }> }>;
    }
  ).content["application/json"]!;
const bodies = (doc: OpenApiDocument, method: string, path: string): Body[] =>
  Object.values(media(doc, method, path).examples ?? {}).map((e) => e.value);
const prop = (doc: OpenApiDocument, component: string, name: string) =>
  (doc.components.schemas[component]!.properties as Record<string, { examples?: unknown[] }>)[name]!;

describe("the document's examples are the running server's data", () => {
  const server = useTestServer();
  let doc: OpenApiDocument;
  let ajv: Ajv2020;
  beforeAll(async () => ({ doc, ajv } = await servedDocument(server)));
  const valid = (component: string, value: unknown) => {
    const validate = ajv.getSchema(`doc#/components/schemas/${component}`)!;
    return validate(value) ? "valid" : JSON.stringify(validate.errors);
  };

  it("names the seed's resources, images, regions and READY FRESH sandbox templates on the fields that take them", () => {
    const names = (type: string) => DEFAULT_SEED.inventory.filter((i) => i.type === type).map((i) => i.name);
    expect(prop(doc, "RentalWorkloadCreate", "resource_name").examples).toEqual(names("rental"));
    expect(prop(doc, "VmWorkloadCreate", "resource_name").examples).toEqual(names("vm"));
    expect(prop(doc, "BmWorkloadCreate", "resource_name").examples).toEqual(names("bm"));
    expect(prop(doc, "VmWorkloadCreate", "image").examples).toEqual(
      DEFAULT_SEED.vm_images.map((i) => i.name),
    );
    expect(prop(doc, "BmWorkloadCreate", "image").examples).toEqual(
      DEFAULT_SEED.bm_images.map((i) => i.name),
    );
    expect(prop(doc, "BmWorkloadCreate", "region").examples).toEqual(["us-east-1"]);
    expect(prop(doc, "SandboxWorkloadCreate", "image").examples).toEqual([
      "tpl-ubuntu-headless",
      "tpl-ubuntu-desktop",
    ]);
    expect(prop(doc, "VolumeCreate", "resource_name").examples).toEqual(names("rental"));
    const sandboxTemplate = doc.paths["/v3/orgs/{org}/sandbox-templates/{uid}"]!.get!.parameters as Body[];
    expect(sandboxTemplate.find((p) => p.name === "uid")!.schema).toMatchObject({
      examples: ["tpl-ubuntu-headless", "tpl-ubuntu-desktop"],
    });
  });

  it("gives create bodies the schema takes and the server accepts: workloads of each type, templates, volumes, SSH keys", async () => {
    const key = await createSshKey(server, "examples");
    const workloads = bodies(doc, "post", "/v3/orgs/{org}/workloads");
    expect(new Set(workloads.map((b) => b.type))).toEqual(new Set(["RENTAL", "VM", "BM", "SANDBOX"]));
    for (const body of workloads) {
      expect(valid("WorkloadCreate", body), JSON.stringify(body)).toBe("valid");
      // A BM workload's key is a UID of the org's: the example's stands for one (a link puts it in).
      const sent = body.type === "BM" ? { ...body, ssh_keys: [key] } : body;
      const res = await call(server, "POST", "/orgs/demo/workloads", sent);
      expect(res.status, `${JSON.stringify(sent)}: ${res.text}`).toBe(201);
    }
    const cases: [string, string, string][] = [
      ["/v3/orgs/{org}/templates", "/orgs/demo/templates", "TemplateCreate"],
      ["/v3/orgs/{org}/volumes", "/orgs/demo/volumes", "VolumeCreate"],
      ["/v3/orgs/{org}/ssh-keys", "/orgs/demo/ssh-keys", "SshKeyCreate"],
    ];
    for (const [path, url, component] of cases) {
      const examples = bodies(doc, "post", path);
      expect(examples.length, path).toBeGreaterThan(0);
      for (const body of examples) {
        expect(valid(component, body), JSON.stringify(body)).toBe("valid");
        const res = await call(server, "POST", url, body);
        expect(res.status, `${url} ${JSON.stringify(body)}: ${res.text}`).toBe(201);
      }
    }
  });

  it("states a template PATCH's manifest as a create body: the schema refuses {manifest: {}} as the server does", async () => {
    expect(valid("TemplatePatch", { manifest: {} })).not.toBe("valid");
    const created = await call<{ uid: string }>(server, "POST", "/orgs/demo/templates", {
      name: "patched",
      type: "VM",
      manifest: bodies(doc, "post", "/v3/orgs/{org}/workloads").find((b) => b.type === "VM"),
    });
    expect(created.status, created.text).toBe(201);
    const path = `/orgs/demo/templates/${created.body.uid}`;
    expectError(await call(server, "PATCH", path, { manifest: {} }), 400, "TEMPLATE_MANIFEST_INVALID");
    for (const body of bodies(doc, "patch", "/v3/orgs/{org}/templates/{uid}")) {
      expect(valid("TemplatePatch", body)).toBe("valid");
      const type = (body.manifest as Body).type;
      const res = await call(server, "PATCH", path, body);
      // The stored template's type is a rule of the stored object: the path does not say it.
      if (type === "VM") expect(res.status, res.text).toBe(200);
      else expectError(res, 400, "TEMPLATE_MANIFEST_INVALID");
    }
  });
});

describe("the document's examples follow the seed the server runs", () => {
  let server: TestServer;
  afterAll(() => server?.close());

  it("names a seed file's inventory, images and templates instead of the built-in seed's", async () => {
    const seed = structuredClone(DEFAULT_SEED);
    for (const item of seed.inventory) item.name = `site-${item.name}`;
    seed.vm_images = [{ ...seed.vm_images[0]!, name: "alma-9" }];
    seed.sandbox_templates = [{ ...seed.sandbox_templates[0]!, uid: "tpl-site", status: "READY" }];
    seed.sandbox_templates.push({ ...seed.sandbox_templates[0]!, uid: "tpl-pending", status: "PENDING" });
    seed.templates = [];
    server = await startTestServer({ seed });
    const doc = (await call<OpenApiDocument>(server, "GET", "/openapi.json")).body;
    expect(prop(doc, "VmWorkloadCreate", "resource_name").examples).toEqual([
      "site-vm-standard",
      "site-vm-gpu",
    ]);
    expect(prop(doc, "VmWorkloadCreate", "image").examples).toEqual(["alma-9"]);
    // Only a READY template starts a sandbox.
    expect(prop(doc, "SandboxWorkloadCreate", "image").examples).toEqual(["tpl-site"]);
    const vm = bodies(doc, "post", "/v3/orgs/{org}/workloads").filter((b) => b.type === "VM");
    expect(vm.map((b) => [b.resource_name, b.image])).toEqual([
      ["site-vm-standard", "alma-9"],
      ["site-vm-gpu", "alma-9"],
    ]);
    for (const body of vm)
      expect((await call(server, "POST", "/orgs/demo/workloads", body)).status).toBe(201);
  });
});
