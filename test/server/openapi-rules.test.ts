/**
 * The OpenAPI document states the rules the server validates with (one source: api/), routes a
 * path by its most literal pattern with the document's methods in `Allow`, and links every
 * create to the operations on what it created. Each case is a failure Schemathesis found.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { publicKeyProblem, SSH_PUBLIC_KEY, validateWorkloadCreate, WORKLOAD_TYPES } from "../../api/index.ts";
import type { OpenApiDocument } from "../../server/openapi/document.ts";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { bm, create, PUBLIC_KEY, servedDocument, waitForStatus } from "./fixtures.ts";

describe("the OpenAPI document and the server agree", () => {
  const server = useTestServer();
  let doc: OpenApiDocument;
  let ajv: Ajv2020;
  beforeAll(async () => ({ doc, ajv } = await servedDocument(server)));
  const component = (name: string): ValidateFunction =>
    ajv.compile({ $ref: `doc#/components/schemas/${name}` });

  it("answers a method a path does not take with 405 and the document's methods of that path in Allow", async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith("/v3/") || Object.values(ops).some((op) => op["x-websocket"])) continue;
      const concrete = path
        .slice(3)
        .replace("{org}", "demo")
        .replace(/\{terminal\}/, "t1")
        .replace(/\{\w+\}/g, "x-1");
      const res = await call(server, "OPTIONS", concrete);
      expectError(res, 405, "METHOD_NOT_ALLOWED");
      const allow = res.headers.get("allow")!.split(", ").sort();
      expect(allow, path).toEqual(
        Object.keys(ops)
          .map((m) => m.toUpperCase())
          .sort(),
      );
    }
    // A literal path is its own: PATCH /workloads/bm-images is not a PATCH of a workload "bm-images".
    const patch = await call(server, "PATCH", "/orgs/demo/workloads/bm-images", {});
    expectError(patch, 405, "METHOD_NOT_ALLOWED");
    expect(patch.headers.get("allow")).toBe("GET");
    expect((await call(server, "GET", "/orgs/demo/workloads/bm-images")).status).toBe(200);
    expectError(await call(server, "GET", "/orgs/demo/workloads/wl-nope"), 404, "WORKLOAD_NOT_FOUND");
  });

  /** A valid body of each type, the start of every generated one. */
  const BASE: Record<string, Record<string, unknown>> = {
    RENTAL: { type: "RENTAL", name: "web", image: "nginx:1", resource_name: "gpu-rental-small" },
    VM: {
      type: "VM",
      name: "vm",
      image: "ubuntu-22.04",
      resource_name: "vm-standard",
      vm_config: { password: "secret" },
    },
    BM: {
      type: "BM",
      name: "bm",
      image: "ubuntu-22.04",
      resource_name: "bm-h100-8x",
      region: "us-east-1",
      ssh_keys: ["k1"],
    },
    SANDBOX: { type: "SANDBOX", name: "box", image: "tpl-ubuntu-headless" },
  };
  /** Values near every rule: each field of each type, names and regions on both sides of their rules. */
  const poolValues = {
    name: fc.constantFrom("web", "a-b", "-a", "a-", "Web", "", "x".repeat(32), "x".repeat(33), "a_b"),
    image: fc.constantFrom("nginx:1", "", "bad image", "a\u00a0b"),
    resource_name: fc.constantFrom("gpu-rental-small", ""),
    region: fc.constantFrom("us-east-1", "US", "-x", "a".repeat(33)),
    reservation_uid: fc.constant("res-1"),
    envs: fc.constant([{ name: "A", value: "1" }]),
    ports: fc.array(
      fc.record(
        {
          port: fc.constantFrom(22, 1023, 1024, 2000, 65536),
          protocol: fc.constantFrom("TCP", "UDP", "SCTP"),
          routing: fc.constantFrom("PROXIED", "DIRECT"),
        },
        { requiredKeys: ["port"] },
      ),
      { maxLength: 3 },
    ),
    commands: fc.constant(["run"]),
    args: fc.constant(["--x"]),
    registry_auth: fc.constant({ server: "r", username: "u", password: "p" }),
    ssh_keys: fc.constantFrom([], ["k1"], ["k1", "k2"], ["k1", "k1"]),
    volumes: fc.constant([{ uid: "vol-1", mount_path: "/d" }]),
    vm_config: fc.constantFrom({ password: "secret" }, { password: "abc" }),
    bm_config: fc.constantFrom({}, { hostname: "node-1.example" }, { hostname: "-bad" }),
    sandbox_config: fc.constantFrom({}, { ttl_sec: 60 }, { idle_timeout_sec: 10, ttl_sec: 60 }),
    project_id: fc.constant("p"),
    experiments: fc.constant({ "reserved-gpu": true }),
    extra: fc.constant(1),
  };
  const pool = fc.record(poolValues);
  /** The body's fields: `type`, then those the pool has values for. */
  const FIELDS = ["type", ...Object.keys(poolValues)];
  /** A valid body of one type with up to two fields set from the pool and maybe one left out. */
  const body = fc
    .tuple(
      fc.constantFrom(...WORKLOAD_TYPES),
      pool,
      fc.subarray(FIELDS.slice(1), { maxLength: 2 }),
      fc.option(fc.constantFrom(...FIELDS), { nil: undefined }),
    )
    .map(([type, values, set, drop]) => {
      const b: Record<string, unknown> = { ...BASE[type] };
      for (const f of set) b[f] = (values as Record<string, unknown>)[f];
      if (drop) delete b[drop];
      return b;
    });
  /** The two rules no JSON Schema states: ports repeated under the default protocol, idle vs ttl. */
  const statable = (b: Record<string, unknown>) => {
    const ports = (b.ports ?? []) as { port: number; protocol?: string }[];
    const keys = ports.map((p) => `${p.port}/${p.protocol ?? "TCP"}`);
    return new Set(keys).size === keys.length;
  };

  it("takes exactly the create bodies the server takes before it reads its data", () => {
    const documented = component("WorkloadCreate");
    let accepted = 0;
    fc.assert(
      fc.property(body, (raw) => {
        const b = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
        fc.pre(statable(b));
        const server = validateWorkloadCreate(b);
        const verdict = documented(b);
        if (server.ok) accepted++;
        expect(verdict, `${JSON.stringify(b)}: ${server.ok ? "" : JSON.stringify(server.violations)}`).toBe(
          server.ok,
        );
      }),
      { numRuns: 3000, seed: 49 },
    );
    // The bodies reach both verdicts.
    expect(accepted).toBeGreaterThan(20);
  });

  it("states the name and image rules on a PATCH, as the server keeps them for a RENTAL workload", async () => {
    const documented = component("WorkloadPatch");
    const created = await call<{ uid: string }>(server, "POST", "/orgs/demo/workloads", BASE.RENTAL);
    for (const name of ["a-b", "Web", "a b", "", "x".repeat(33)]) {
      const res = await call(server, "PATCH", `/orgs/demo/workloads/${created.body.uid}`, { name });
      expect(documented({ name }), name).toBe(res.status === 200);
      if (res.status !== 200) expectError(res, 400, "WORKLOAD_NAME_INVALID");
    }
    expect(documented({ ssh_keys: ["k", "k"] })).toBe(false);
    for (const image of ["nginx:1.27", "nginx 1.27"]) {
      const res = await call(server, "PATCH", `/orgs/demo/workloads/${created.body.uid}`, { image });
      expect(documented({ image }), image).toBe(res.status === 200);
    }
  });

  it("states a sandbox's name rule on a fork's name", () => {
    const documented = component("ForkBody");
    for (const [name, ok] of [
      ["child-1", true],
      ["child-", false],
      ["-child", false],
      ["Child", false],
      ["x".repeat(33), false],
    ] as const)
      expect(documented({ name }), name).toBe(ok);
    expect(documented({})).toBe(true);
  });

  it("states an access ticket's lifetime range", () => {
    const documented = component("TicketBody");
    for (const [ttl_sec, ok] of [
      [1, true],
      [300, true],
      [0, false],
      [301, false],
    ] as const)
      expect(documented({ ttl_sec }), String(ttl_sec)).toBe(ok);
  });

  it("refuses a RENTAL exec whose body is not the endpoint's, as it documents one", async () => {
    const w = (await call<{ uid: string }>(server, "POST", "/orgs/demo/workloads", BASE.RENTAL)).body;
    await call(server, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(server, w.uid, "running");
    const path = `/orgs/demo/workloads/${w.uid}/exec?command=echo&command=hi`;
    expect((await call(server, "POST", path)).status).toBe(200);
    expectError(
      await call(server, "POST", path, undefined, {
        raw: "X\u0014",
        headers: { "content-type": "application/json" },
      }),
      400,
      "INVALID_BODY",
    );
    expectError(await call(server, "POST", path, { nope: 1 }), 400, "WORKLOAD_EXEC_INVALID");
  });

  it("states a terminal's size range and a sandbox template PATCH's one required field", () => {
    const terminal = component("TerminalCreate");
    expect(terminal({ cols: 80, rows: 24 })).toBe(true);
    for (const cols of [0, -3727, 1001]) expect(terminal({ cols }), String(cols)).toBe(false);
    const patch = component("SandboxTemplatePatch");
    expect(patch({ description: "d" })).toBe(true);
    expect(patch({})).toBe(false);
  });

  it("ties a template's manifest to its type, and refuses a manifest that is not a create body", () => {
    const documented = component("TemplateCreate");
    const manifest = { type: "RENTAL", name: "web", image: "nginx", resource_name: "gpu-rental-small" };
    expect(documented({ name: "t", type: "RENTAL", manifest })).toBe(true);
    expect(documented({ name: "t", type: "VM", manifest })).toBe(false);
    expect(documented({ name: "t", type: "RENTAL", manifest: { ...manifest, envs: "x" } })).toBe(false);
    expect(documented({ name: "t", type: "RENTAL", manifest: { ...manifest, ssh_keys: ["a", "a"] } })).toBe(
      false,
    );
  });

  it("states the SSH public key rule as a pattern the server keeps to the letter", () => {
    const documented = component("SshKeyCreate");
    expect(documented({ name: "k", ssh_key: PUBLIC_KEY })).toBe(true);
    const line = fc.tuple(
      fc.constantFrom("", " ", "\n", "\t"),
      fc.constantFrom("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ssh-dss", "ssh-rsa2"),
      fc.constantFrom(" ", "\t", "  ", "", "\n"),
      fc.oneof(
        fc.constant(PUBLIC_KEY.split(" ")[1]!),
        fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString("base64")),
        fc.constantFrom("AAAAB3NzaC1yc2E=", "AAAAB3NzaC1yc2F=", "AAAAC3NzaC1lZDI1NTE5", "@@@@"),
      ),
      fc.constantFrom("", " me@host", " a\u0001b", "\t c"),
      fc.constantFrom("", "\n", " "),
    );
    fc.assert(
      fc.property(line, (parts) => {
        const text = parts.join("");
        expect(SSH_PUBLIC_KEY.test(text), JSON.stringify(text)).toBe(publicKeyProblem(text) === undefined);
      }),
      { numRuns: 2000, seed: 49 },
    );
    for (const type of ["ssh-rsa", "ecdsa-sha2-nistp384"]) {
      const head = Buffer.alloc(4 + type.length);
      head.writeUInt32BE(type.length);
      head.write(type, 4, "latin1");
      for (let n = 0; n < 5; n++) {
        const text = `${type} ${Buffer.concat([head, Buffer.alloc(n, 0xab)]).toString("base64")}`;
        expect(SSH_PUBLIC_KEY.test(text), text).toBe(true);
        expect(publicKeyProblem(text), text).toBeUndefined();
      }
    }
  });

  it("describes a list cursor as the server's own, and answers any other with 404", async () => {
    const list = doc.paths["/v3/orgs/{org}/workloads"]!.get! as unknown as {
      parameters: { name: string; description?: string }[];
    };
    expect(list.parameters.find((p) => p.name === "cursor")?.description).toMatch(
      /next_cursor.*404 CURSOR_NOT_FOUND/,
    );
    expect(doc.paths["/v3/orgs/{org}/workloads"]!.get!["x-reasons"]).toContain("CURSOR_NOT_FOUND");
    expectError(await call(server, "GET", "/orgs/demo/ssh-keys?cursor=anything"), 404, "CURSOR_NOT_FOUND");
  });

  it("answers a schema-valid reference to nothing (inventory, image, key, volume) with 404", async () => {
    const rental = { type: "RENTAL", name: "web", image: "nginx", resource_name: "gpu-rental-small" };
    for (const [b, reason] of [
      [{ ...rental, resource_name: "nope" }, "WORKLOAD_RESOURCE_NOT_FOUND"],
      [{ ...rental, resource_name: "vm-standard" }, "WORKLOAD_RESOURCE_TYPE_MISMATCH"],
      [{ ...rental, ssh_keys: ["key-nope"] }, "WORKLOAD_SSH_KEY_NOT_FOUND"],
      [{ ...rental, volumes: [{ uid: "vol-nope", mount_path: "/d" }] }, "WORKLOAD_VOLUME_NOT_FOUND"],
      [
        {
          type: "VM",
          name: "v",
          image: "nope",
          resource_name: "vm-standard",
          vm_config: { password: "secret" },
        },
        "WORKLOAD_IMAGE_NOT_FOUND",
      ],
    ] as const) {
      expect(component("WorkloadCreate")(b), JSON.stringify(b)).toBe(true);
      expectError(await call(server, "POST", "/orgs/demo/workloads", b), 404, reason);
    }
    const volume = { name: "v", size_in_mb: 10, resource_name: "nope" };
    expect(component("VolumeCreate")(volume)).toBe(true);
    expectError(await call(server, "POST", "/orgs/demo/volumes", volume), 404, "VOLUME_RESOURCE_NOT_FOUND");
  });

  it("states on a detach that a BM workload keeps its last SSH key, as the server answers", async () => {
    const detach = doc.paths["/v3/orgs/{org}/workloads/{uid}/ssh-keys/{key}"]!.delete!;
    expect(detach.description).toMatch(
      /BM workload keeps at least one SSH key.*400 `WORKLOAD_BM_SSH_KEYS_REQUIRED`/,
    );
    expect(detach["x-reasons"]).toContain("WORKLOAD_BM_SSH_KEYS_REQUIRED");
    const body = await bm(server);
    const metal = await create(server, body);
    const [key] = body.ssh_keys as string[];
    const res = await call(server, "DELETE", `/orgs/demo/workloads/${metal.uid}/ssh-keys/${key}`);
    expectError(res, 400, "WORKLOAD_BM_SSH_KEYS_REQUIRED");
  });

  it("states the terminal id rule on the path parameter", async () => {
    const del = doc.paths["/v3/orgs/{org}/workloads/{uid}/terminals/{terminal}"]!.delete! as unknown as {
      parameters: { name: string; schema: { pattern?: string } }[];
    };
    const pattern = new RegExp(del.parameters.find((p) => p.name === "terminal")!.schema.pattern!);
    expect(pattern.test("t-1.x_y")).toBe(true);
    expect(pattern.test("a b")).toBe(false);
    expect(pattern.test("x".repeat(65))).toBe(false);
  });

  it("links every create to the operations on what it created", () => {
    const ids = new Set(
      Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)),
    );
    const linksOf = (path: string, method: string, status: string) =>
      (
        doc.paths[path]![method]!.responses[status] as {
          links?: Record<
            string,
            { operationId: string; parameters: Record<string, string>; requestBody?: unknown }
          >;
        }
      ).links ?? {};
    const created = linksOf("/v3/orgs/{org}/workloads", "post", "201");
    for (const id of [
      "postOrgsByOrgWorkloadsByUidDeploy",
      "getOrgsByOrgWorkloadsByUidState",
      "getOrgsByOrgWorkloadsByUidLogs",
      "deleteOrgsByOrgWorkloadsByUid",
    ])
      expect(created[id]?.parameters, id).toEqual({ org: "$request.path.org", uid: "$response.body#/uid" });
    // What needs a running workload is linked from the deploy, not from the create.
    expect(created.postOrgsByOrgWorkloadsByUidExec).toBeUndefined();
    const deployed = linksOf("/v3/orgs/{org}/workloads/{uid}/deploy", "post", "200");
    for (const id of ["postOrgsByOrgWorkloadsByUidExec", "postOrgsByOrgWorkloadsByUidFork"])
      expect(deployed[id]?.parameters, id).toEqual({ org: "$request.path.org", uid: "$response.body#/uid" });
    const terminal = linksOf("/v3/orgs/{org}/workloads/{uid}/terminals", "post", "201");
    expect(terminal.deleteOrgsByOrgWorkloadsByUidTerminalsByTerminal?.parameters).toEqual({
      org: "$request.path.org",
      uid: "$request.path.uid",
      terminal: "$response.body#/id",
    });
    // A key or volume the create's body named: its detach takes the UID from that body.
    expect(created.deleteOrgsByOrgWorkloadsByUidSshKeysByKey?.parameters).toEqual({
      org: "$request.path.org",
      uid: "$response.body#/uid",
      key: "$request.body#/ssh_keys/0",
    });
    expect(created.deleteOrgsByOrgWorkloadsByUidVolumesByVolume?.parameters.volume).toBe(
      "$request.body#/volumes/0/uid",
    );
    // What an answer leads to beyond its object: a created key into a workload's body, the
    // created workload into a verify, a frozen sandbox to its thaw.
    const key = linksOf("/v3/orgs/{org}/ssh-keys", "post", "201");
    expect(key.postOrgsByOrgWorkloads).toMatchObject({
      parameters: { org: "$request.path.org" },
      requestBody: { ssh_keys: ["$response.body#/uid"] },
    });
    const volume = linksOf("/v3/orgs/{org}/volumes", "post", "201");
    expect(volume.postOrgsByOrgWorkloads?.requestBody).toEqual({
      type: "RENTAL",
      volumes: [{ uid: "$response.body#/uid", mount_path: "/data" }],
    });
    expect(created.postOrgsByOrgWorkloadsVerify?.requestBody).toEqual({
      uid: "$response.body#/uid",
    });
    const frozen = linksOf("/v3/orgs/{org}/workloads/{uid}/freeze", "post", "200");
    expect(frozen.postOrgsByOrgWorkloadsByUidThaw?.parameters).toEqual({
      org: "$request.path.org",
      uid: "$request.path.uid",
    });
    for (const [path, method, status] of [
      ["/v3/orgs/{org}/volumes", "post", "201"],
      ["/v3/orgs/{org}/ssh-keys", "post", "201"],
      ["/v3/orgs/{org}/templates", "post", "201"],
      ["/v3/orgs/{org}/workloads/{uid}/fork", "post", "201"],
      ["/v3/orgs/{org}/workloads/{uid}/publish", "post", "202"],
    ] as const) {
      const links = Object.values(linksOf(path, method, status));
      expect(links.length, path).toBeGreaterThan(1);
      for (const link of links) expect(ids.has(link.operationId), link.operationId).toBe(true);
    }
  });
});
