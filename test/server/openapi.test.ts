import { Validator } from "@seriousme/openapi-schema-validator";

type SpecData = Record<string, unknown>;
import { Ajv2020 } from "ajv/dist/2020.js";
import { request } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import type { OpenApiDocument, OpenApiOperation } from "../../server/openapi/document.ts";
import { call } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { rental } from "./fixtures.ts";

describe("OpenAPI document", () => {
  const server = useTestServer();
  let doc: OpenApiDocument;
  beforeAll(async () => {
    const res = await call<OpenApiDocument>(server, "GET", "/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as SpecData);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // The validator does refuse a broken 3.1 document (a parameter in the body, as in 2.0).
    const broken = structuredClone(doc) as OpenApiDocument;
    (broken.paths["/v3/orgs/{org}/workloads"]!.get!.parameters as { in: string }[])[0]!.in = "body";
    expect((await new Validator().validate(broken as unknown as SpecData)).valid).toBe(false);
    expect(doc.servers).toEqual([expect.objectContaining({ url: server.origin })]);
  });

  it("lists every route the server serves, and only those", () => {
    const served = [
      ...server.context.router.list().map((r) => `${r.method} /v3${r.pattern}`),
      ...server.context.admin.list().map((r) => `${r.method} /admin${r.pattern}`),
    ].map((s) => s.replace(/:(\w+)/g, "{$1}"));
    const documented = operations()
      .filter(({ op }) => !op["x-websocket"])
      .map(({ method, path }) => `${method} ${path}`);
    expect([...new Set(documented)].sort()).toEqual([...new Set(served)].sort());
    expect(documented.length).toBe(new Set(documented).size);
  });

  it("registers every route of /v3 and /admin from the endpoint table, with the table's method, path and auth", () => {
    for (const [prefix, router] of [
      ["/v3", server.context.router],
      ["/admin", server.context.admin],
    ] as const) {
      for (const r of router.list()) {
        const where = `${r.method} ${prefix}${r.pattern}`;
        expect(r.endpoint, where).toBeDefined();
        expect(
          [r.endpoint!.prefix, r.endpoint!.method, r.endpoint!.pattern, r.endpoint!.auth],
          where,
        ).toEqual([prefix, r.method, r.pattern, r.auth]);
      }
    }
  });

  it("documents the WebSocket routes the upgrade handlers take", async () => {
    const sockets = operations().filter(({ op }) => op["x-websocket"]);
    expect(sockets.map((s) => s.path).sort()).toEqual([
      "/v3/orgs/{org}/workloads/{uid}/desktop/ws",
      "/v3/orgs/{org}/workloads/{uid}/terminals/{terminal}/ws",
    ]);
    const upgrade = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${server.origin}${path}`, {
          headers: {
            connection: "Upgrade",
            upgrade: "websocket",
            "sec-websocket-version": "13",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("upgrade", (_res, socket) => {
          socket.destroy();
          resolve(101);
        });
        req.on("error", reject);
        req.end();
      });
    for (const { path } of sockets) {
      const concrete = path.replace("{org}", "demo").replace("{uid}", "wl-nope").replace("{terminal}", "t1");
      // Taken by a handler (it asks for credentials), not refused as an unknown route.
      expect(await upgrade(concrete)).toBe(401);
    }
    expect(await upgrade("/v3/orgs/demo/workloads/wl-nope/nothing/ws")).toBe(404);
  });

  it("names the schemas of the contract and every reason code with its status", () => {
    const schemas = doc.components.schemas;
    for (const name of [
      "WorkloadCreate",
      "WorkloadPatch",
      "Workload",
      "WorkloadOperation",
      "ErrorBody",
      "Reason",
    ])
      expect(schemas[name], name).toBeDefined();
    const reason = schemas.Reason as { enum: string[]; "x-status": Record<string, number> };
    expect(reason["x-status"].WORKLOAD_NOT_FOUND).toBe(404);
    expect(reason.enum).toContain("WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD");
    const create = doc.paths["/v3/orgs/{org}/workloads"]!.post!;
    expect(create.requestBody).toEqual({
      required: true,
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/WorkloadCreate" },
          // The server's data as whole create bodies (openapi-examples.test.ts).
          examples: expect.any(Object),
        },
      },
    });
    expect(create.responses["201"]!.content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/WorkloadOperation" } },
    });
    // The create body is one closed object per type, told apart by `type`.
    const wc = schemas.WorkloadCreate as { oneOf: { $ref: string }[]; discriminator: unknown };
    expect(wc.oneOf.map((s) => s.$ref.split("/").at(-1))).toEqual([
      "RentalWorkloadCreate",
      "VmWorkloadCreate",
      "BmWorkloadCreate",
      "SandboxWorkloadCreate",
    ]);
    expect(wc.discriminator).toMatchObject({ propertyName: "type" });
    const bm = schemas.BmWorkloadCreate as { required: string[]; additionalProperties: boolean };
    expect(bm.required).toEqual(expect.arrayContaining(["type", "name", "image", "region", "ssh_keys"]));
    expect(bm.additionalProperties).toBe(false);
    const list = doc.paths["/v3/orgs/{org}/workloads"]!.get! as OpenApiOperation & {
      parameters: { name: string; in: string; schema: Record<string, unknown> }[];
    };
    expect(list.parameters.find((p) => p.name === "limit")).toMatchObject({
      in: "query",
      schema: { type: "integer", minimum: 1, maximum: 1000 },
    });
  });

  /** The documented answer schema of an operation for a status and content type. */
  let ajv: Ajv2020 | undefined;
  function answerValidator(method: string, path: string, status: number) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema({ $id: "doc", components: doc.components });
    }
    const response = doc.paths[path]![method.toLowerCase()]!.responses[String(status)];
    expect(response, `${method} ${path} documents ${status}`).toBeDefined();
    const schema = (response!.content!["application/json"] as { schema: object }).schema;
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
    return ajv.compile(rewritten);
  }

  it("describes what the server really answers, successes and errors", async () => {
    const check = async (method: string, template: string, path: string, body?: unknown) => {
      const res = await call<{ uid: string; reason: string }>(server, method, path, body);
      const validate = answerValidator(method, `/v3${template}`, res.status);
      expect(
        validate(res.body),
        `${method} ${path} → ${res.status}: ${JSON.stringify(validate.errors)}`,
      ).toBe(true);
      if (res.status >= 400) {
        const codes = doc.paths[`/v3${template}`]![method.toLowerCase()]!.responses[String(res.status)]![
          "x-reasons" as never
        ] as string[];
        expect(codes, `${method} ${template} documents ${res.body.reason}`).toContain(res.body.reason);
      }
      return res;
    };
    const key = await check("POST", "/orgs/{org}/ssh-keys", "/orgs/demo/ssh-keys", {
      name: "k",
      ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx t@cws",
    });
    const created = await check(
      "POST",
      "/orgs/{org}/workloads",
      "/orgs/demo/workloads",
      rental({ ssh_keys: [key.body.uid] }),
    );
    expect(created.status).toBe(201);
    const uid = created.body.uid as string;
    await check("POST", "/orgs/{org}/workloads/{uid}/deploy", `/orgs/demo/workloads/${uid}/deploy`);
    await check("GET", "/orgs/{org}/workloads/{uid}", `/orgs/demo/workloads/${uid}`);
    await check("GET", "/orgs/{org}/workloads", "/orgs/demo/workloads");
    await check("GET", "/orgs/{org}/workloads/{uid}/state", `/orgs/demo/workloads/${uid}/state`);
    await check("GET", "/orgs/{org}/workloads/{uid}/events", `/orgs/demo/workloads/${uid}/events`);
    await check("POST", "/orgs/{org}/volumes", "/orgs/demo/volumes", {
      name: "v",
      size_in_mb: 10,
      resource_name: "gpu-rental-small",
    });
    await check("GET", "/orgs/{org}/volumes", "/orgs/demo/volumes");
    await check("GET", "/orgs/{org}/sandbox-templates", "/orgs/demo/sandbox-templates");
    await check("GET", "/orgs/{org}/templates", "/orgs/demo/templates");
    await check("GET", "/orgs/{org}/workloads/vm-images", "/orgs/demo/workloads/vm-images");
    // Errors: the body is ErrorBody and the reason is one the operation lists under that status.
    expect(
      (await check("GET", "/orgs/{org}/workloads/{uid}", "/orgs/demo/workloads/wl-missing")).status,
    ).toBe(404);
    const bad = await check("POST", "/orgs/{org}/workloads", "/orgs/demo/workloads", {
      type: "RENTAL",
      name: "Not A Name!",
      image: "nginx",
      resource_name: "gpu-rental-small",
    });
    expect(bad.body.reason).toBe("WORKLOAD_NAME_INVALID");
    expect(
      (await check("POST", "/orgs/{org}/workloads/{uid}/deploy", `/orgs/demo/workloads/${uid}/deploy`))
        .status,
    ).toBe(409);
    expect((await check("GET", "/orgs/{org}/workloads", "/orgs/other/workloads")).status).toBe(403);
    expect(
      (await check("DELETE", "/orgs/{org}/ssh-keys/{uid}", `/orgs/demo/ssh-keys/${key.body.uid}`)).body
        .reason,
    ).toBe("SSH_KEY_IN_USE");
  });
});
