/**
 * List resources and generated configuration (Terraform 1.14+, `terraform query`) as Terraform
 * calls them, against an org made by hand through the API: the list schemas (the API's filters),
 * ValidateListResourceConfig naming the filter and its rule, ListResource's events (identity,
 * display name, and with include_resource the object as an import reads it), the filters and the
 * limit, the same objects as `cws adopt` finds, and GenerateResourceConfig's configuration, which
 * plans against the imported object with no change. One list goes over the plugin's gRPC server,
 * as Terraform's server stream.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOrg } from "../../../provider/adopt/inventory.ts";
import { PROTO_OPTIONS, serve } from "../../../provider/opentofu/serve.ts";
import type { MsgValue } from "../../../provider/opentofu/msgpack.ts";
import { resourcesOf } from "../../../provider/opentofu/tf-schema.ts";
import { clientFor, makeOrgByHand, type HandMadeOrg } from "../../helpers/adopt-org.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { SCHEMA, dv, tofuProvider, undv, type Diag, type Obj } from "./fixture.ts";

const server = useTestServer({ provisionDelayMs: 10 });
const provider = tofuProvider();
let org: HandMadeOrg;

const KINDS: Record<string, string> = {
  cws_workload: "Workload",
  cws_sandbox: "Sandbox",
  cws_sandbox_template: "SandboxTemplate",
  cws_volume: "Volume",
  cws_ssh_key: "SshKey",
  cws_workload_template: "WorkloadTemplate",
};
const FILTERS: Record<string, string[]> = {
  cws_workload: ["type", "status", "name", "project_id"],
  cws_sandbox: ["status", "name", "project_id"],
  cws_sandbox_template: ["kind", "status"],
  cws_volume: ["workload_uid"],
  cws_ssh_key: [],
  cws_workload_template: ["type"],
};

interface Event {
  identity?: { identity_data: { msgpack: Buffer } };
  display_name?: string;
  resource_object?: { msgpack: Buffer };
  diagnostic?: Diag[];
}

/** The config block of a list: every filter, null unless given. */
const listConfig = (type: string, values: Record<string, MsgValue> = {}) =>
  dv({ ...Object.fromEntries(FILTERS[type]!.map((f) => [f, null])), ...values });

async function list(type: string, values: Record<string, MsgValue> = {}, more: Obj = {}): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of provider.listResource({
    type_name: type,
    config: listConfig(type, values),
    limit: 100,
    ...more,
  }))
    events.push(e as Event);
  return events;
}
const uids = (events: Event[]) => events.map((e) => undv(e.identity!.identity_data)!.uid as string).sort();

beforeAll(async () => {
  provider.configureProvider({
    config: dv({ endpoint: server.baseUrl, org: "demo", api_token: DEMO_TOKEN }),
  });
  org = await makeOrgByHand(server);
}, 300_000);

describe("list resource schemas", () => {
  it("declares a list resource per managed kind, its filters the API's, and generated configuration", () => {
    const meta = provider.getMetadata() as {
      list_resources: { type_name: string }[];
      server_capabilities: Record<string, boolean>;
    };
    expect(meta.list_resources.map((l) => l.type_name).sort()).toEqual(Object.keys(KINDS).sort());
    expect(meta.server_capabilities.generate_resource_config).toBe(true);
    const schema = provider.getProviderSchema() as {
      list_resource_schemas: Record<string, { block: { attributes: { name: string; optional: boolean }[] } }>;
    };
    for (const [type, filters] of Object.entries(FILTERS)) {
      const attrs = schema.list_resource_schemas[type]!.block.attributes;
      expect(attrs.map((a) => a.name).sort(), type).toEqual([...filters].sort());
      expect(attrs.every((a) => a.optional)).toBe(true);
    }
  });
});

describe("ValidateListResourceConfig", () => {
  it("names the filter and its rule, under the list block's config", () => {
    const res = provider.validateListResourceConfig({
      type_name: "cws_workload",
      config: listConfig("cws_workload", { type: "SANDBOX", status: "running" }),
    }) as { diagnostics: Diag[] };
    expect(res.diagnostics).toHaveLength(1);
    expect(res.diagnostics[0]!.detail).toBe("type must be one of RENTAL, VM, BM");
    expect(res.diagnostics[0]!.attribute!.steps).toEqual([
      { attribute_name: "config" },
      { attribute_name: "type" },
    ]);
    const ok = provider.validateListResourceConfig({
      type_name: "cws_sandbox_template",
      config: listConfig("cws_sandbox_template", { kind: "USER", status: "READY" }),
    }) as { diagnostics: Diag[] };
    expect(ok.diagnostics).toEqual([]);
  });
});

describe("ListResource", () => {
  it("finds, kind by kind, the objects cws adopt finds: none deleted, none of the platform's", async () => {
    const adopted = await listOrg(clientFor(server));
    for (const [type, kind] of Object.entries(KINDS)) {
      const events = await list(type);
      expect(uids(events), type).toEqual(
        adopted
          .filter((a) => a.kind === kind)
          .map((a) => a.uid)
          .sort(),
      );
      for (const e of events) {
        expect(undv(e.identity!.identity_data)!.org).toBe("demo");
        expect(e.resource_object).toBeUndefined();
      }
    }
    expect(uids(await list("cws_workload"))).toEqual([org.web, org.batch, org.vm, org.bm].sort());
    expect(uids(await list("cws_workload"))).not.toContain(org.deleted);
    expect(uids(await list("cws_sandbox"))).toEqual([org.dev, org.fork, org.fromTemplate].sort());
  });

  it("shows each object by its name, type and status", async () => {
    const names = (await list("cws_workload")).map((e) => e.display_name).sort();
    expect(names).toEqual([
      "batch (RENTAL, suspended)",
      "build-vm (VM, running)",
      "train (BM, running)",
      "web (RENTAL, running)",
    ]);
  });

  it("selects by the API's filters, and stops at the limit", async () => {
    expect(uids(await list("cws_workload", { type: "VM" }))).toEqual([org.vm]);
    expect(uids(await list("cws_workload", { status: "suspended" }))).toEqual([org.batch]);
    expect(uids(await list("cws_workload", { name: "web" }))).toEqual([org.web]);
    expect(uids(await list("cws_workload", { project_id: "proj-shop" }))).toEqual([org.web]);
    expect(uids(await list("cws_sandbox", { status: "frozen" }))).toEqual([org.fromTemplate]);
    expect(uids(await list("cws_volume", { workload_uid: org.web }))).toEqual([org.volume]);
    expect(uids(await list("cws_volume", { workload_uid: org.vm }))).toEqual([]);
    expect(uids(await list("cws_sandbox_template", { status: "READY" }))).toEqual([org.template]);
    expect((await list("cws_sandbox_template", { kind: "FRESH" })).length).toBeGreaterThan(0);
    expect(uids(await list("cws_workload_template", { type: "RENTAL" }))).toEqual([org.workloadTemplate]);
    expect(uids(await list("cws_workload_template", { type: "VM" }))).toEqual([]);
    expect(await list("cws_workload", {}, { limit: 2 })).toHaveLength(2);
  });

  it("answers a bad filter with one event holding the diagnostic, named in the config block", async () => {
    const events = await list("cws_sandbox_template", { kind: "SHARED" });
    expect(events).toHaveLength(1);
    expect(events[0]!.identity).toBeUndefined();
    expect(events[0]!.diagnostic![0]).toMatchObject({
      severity: "ERROR",
      detail: "kind must be one of FRESH, USER",
      attribute: { steps: [{ attribute_name: "kind" }] },
    });
  });

  it("with include_resource, gives each object as an import reads it", async () => {
    for (const type of Object.keys(KINDS)) {
      for (const e of await list(type, {}, { include_resource_object: true })) {
        const uid = undv(e.identity!.identity_data)!.uid as string;
        const imported = (await provider.importResourceState({ type_name: type, id: uid })) as {
          imported_resources: { state: { msgpack: Buffer } }[];
        };
        expect(undv(e.resource_object), `${type} ${uid}`).toEqual(
          undv(imported.imported_resources[0]!.state),
        );
      }
    }
  });
});

describe("GenerateResourceConfig", () => {
  it("writes what a person would: no computed attribute, no input never set, no write-only twin", async () => {
    const [vm] = await list("cws_workload", { type: "VM" }, { include_resource_object: true });
    const res = provider.generateResourceConfig({
      type_name: "cws_workload",
      state: vm!.resource_object,
    }) as {
      config: { msgpack: Buffer };
      diagnostics: Diag[];
    };
    expect(res.diagnostics).toEqual([]);
    const config = undv(res.config)!;
    const set = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null));
    expect(set).toMatchObject({
      type: "VM",
      name: "build-vm",
      image: "ubuntu-22.04",
      resource_name: "vm-standard",
    });
    for (const computed of ["id", "uid", "status", "created_at", "placed_region", "urls"])
      expect(config[computed], computed).toBeNull();
    for (const provider of ["ready_timeout_sec", "wait_for_capacity", "adopt_uid", "fallback_regions"])
      expect(config[provider], provider).toBeNull();
    const vmConfig = config.vm_config as Obj | null;
    if (vmConfig)
      expect([vmConfig.password, vmConfig.password_wo, vmConfig.password_wo_version]).toEqual([
        null,
        null,
        null,
      ]);
  });

  it("gives, for every object of every kind, configuration that plans against its import with no change", async () => {
    for (const type of Object.keys(KINDS)) {
      for (const e of await list(type, {}, { include_resource_object: true })) {
        const uid = undv(e.identity!.identity_data)!.uid as string;
        const generated = provider.generateResourceConfig({ type_name: type, state: e.resource_object }) as {
          config: { msgpack: Buffer };
        };
        const config = undv(generated.config)!;
        // The sensitive attributes are the user's to write (Terraform writes them `null # sensitive`).
        const filled: Obj =
          type === "cws_workload_template"
            ? { ...config, manifest: undv(e.resource_object)!.manifest ?? null }
            : config;
        const prior = undv(e.resource_object)!;
        const plan = provider.planResourceChange({
          type_name: type,
          prior_state: e.resource_object,
          proposed_new_state: dv(proposedOf(type, prior, filled)),
          config: dv(filled),
        }) as { planned_state?: { msgpack: Buffer }; requires_replace?: unknown[]; diagnostics: Diag[] };
        expect(plan.diagnostics, `${type} ${uid}`).toEqual([]);
        expect(plan.requires_replace ?? [], `${type} ${uid}`).toEqual([]);
        expect(undv(plan.planned_state), `${type} ${uid}`).toEqual(prior);
      }
    }
  });
});

/** The proposed new state Terraform makes: the configuration, computed attributes from prior state. */
function proposedOf(type: string, prior: Obj, config: Obj): Obj {
  const r = resourcesOf(SCHEMA).find((x) => x.typeName === type)!;
  const out: Obj = { ...config };
  for (const a of r.attributes) if (a.computed) out[a.name] = prior[a.name] ?? null;
  return out;
}

describe("ListResource over gRPC", () => {
  let stop: () => void;
  let client: grpc.Client & Record<string, (req: unknown) => grpc.ClientReadableStream<Event>>;
  /** A list's events as Terraform receives them, until the stream ends. */
  const received = (req: unknown) =>
    new Promise<Event[]>((resolve, reject) => {
      const events: Event[] = [];
      const call = client.ListResource!(req);
      call.on("data", (e: Event) => events.push(e));
      call.on("error", reject);
      call.on("end", () => resolve(events));
    });
  beforeAll(async () => {
    // The first provider configured, a second one not: both served by one server.
    const unconfigured = tofuProvider();
    const served = await serve(
      new Proxy(provider, {
        get: (target, key) =>
          key === "listResource"
            ? (req: { type_name: string }, call: unknown) =>
                (req.type_name === "cws_volume" ? unconfigured : target).listResource(req, call as never)
            : (Reflect.get(target, key) as unknown),
      }),
      {},
    );
    stop = () => served.server.forceShutdown();
    const def = protoLoader.loadSync("tfplugin6.proto", PROTO_OPTIONS);
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      tfplugin6: { Provider: grpc.ServiceClientConstructor };
    };
    client = new pkg.tfplugin6.Provider(
      served.handshake.split("|")[3]!,
      grpc.credentials.createInsecure(),
    ) as never;
  });
  afterAll(() => {
    client?.close();
    stop?.();
  });

  it("streams one event per object, then ends", async () => {
    const events = await received({
      type_name: "cws_ssh_key",
      config: listConfig("cws_ssh_key"),
      include_resource_object: true,
      limit: 100,
    });
    expect(events.map((e) => e.display_name)).toEqual(["deploy"]);
    expect(undv(events[0]!.resource_object)).toMatchObject({ name: "deploy", uid: org.key });
  });

  it("ends a list that fails with an event holding the error, as Terraform shows a diagnostic", async () => {
    const events = await received({ type_name: "cws_volume", config: listConfig("cws_volume"), limit: 100 });
    expect(events).toHaveLength(1);
    expect(events[0]!.identity).toBeFalsy();
    expect(events[0]!.diagnostic![0]).toMatchObject({ severity: "ERROR" });
    expect(events[0]!.diagnostic![0]!.summary + (events[0]!.diagnostic![0]!.detail ?? "")).toMatch(
      /configure|endpoint|org/i,
    );
  });
});
