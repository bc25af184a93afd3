/**
 * How the OpenTofu front end plans and upgrades state, called as OpenTofu calls it (msgpack
 * objects with every attribute): values known only at apply, what the service fills in not
 * shown as a change, replacement where the core replaces (saying why when the attributes alone
 * do not), state from a newer provider refused.
 */
import { describe, expect, it } from "vitest";
import { UNKNOWN_VALUE, decodeMsgpack } from "../../../provider/opentofu/msgpack.ts";
import {
  WEB,
  dv,
  planWorkload,
  state,
  tofuProvider,
  workload,
  type Obj,
  type PlanResponse,
} from "./fixture.ts";

const provider = tofuProvider();
const port = (p: number, protocol: string | null = null, routing: string | null = null) => ({
  port: p,
  protocol,
  routing,
});

/** A plan whose planned state is there (no error). */
function plan(prior: Obj | null, config: Obj): PlanResponse & { planned: Obj } {
  const res = planWorkload(provider, prior, config);
  return { ...res, planned: res.planned! };
}

const PRIOR = state({ ...WEB, ports: [port(8080, "TCP", "PROXIED")] });

describe("OpenTofu plans", () => {
  it("plans a create whose inputs are known only at apply, with every output known after apply", () => {
    const r = plan(null, workload({ ...WEB, ssh_keys: UNKNOWN_VALUE }));
    expect(r.diagnostics).toEqual([]);
    expect(r.planned.ssh_keys).toBe(UNKNOWN_VALUE);
    expect(r.planned.id).toBe(UNKNOWN_VALUE);
    expect(r.planned.status).toBe(UNKNOWN_VALUE);
    expect(r.planned.image).toBe("nginx:1.27");
  });

  it("keeps what the service filled in (port protocol and routing): no change, so no perpetual diff", () => {
    const r = plan(PRIOR, workload({ ...WEB, ports: [port(8080)] }));
    expect(r.diagnostics).toEqual([]);
    expect(r.planned).toEqual(PRIOR);
  });

  it("warns that an image change redeploys, and keeps the id and uid known", () => {
    const r = plan(PRIOR, workload({ ...WEB, image: "nginx:1.28", ports: [port(8080)] }));
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "WARNING",
        summary: 'image changes: the service redeploys cws_workload "web" (restart)',
      }),
    ]);
    expect(r.planned.image).toBe("nginx:1.28");
    expect(r.planned.uid).toBe("wl-1");
    expect(r.planned.status).toBe(UNKNOWN_VALUE);
    expect(r.requires_replace).toEqual([]);
  });

  it("requires replacement where the core replaces, without a redeploy warning", () => {
    const r = plan(PRIOR, workload({ ...WEB, resource_name: "gpu-rental-large", ports: [port(8080)] }));
    expect(r.requires_replace).toEqual([{ steps: [{ attribute_name: "resource_name" }] }]);
    expect(r.diagnostics).toEqual([]);
    expect(r.planned.uid).toBe(UNKNOWN_VALUE);
  });

  it("changes candidate lists in place while the placement stays listed, and says why it replaces otherwise", () => {
    const GPU = { ...WEB, resource_name: "gpu-rental-large", fallback_resource_names: ["gpu-rental-medium"] };
    const prior = state({ ...GPU, placed_resource_name: "gpu-rental-medium" });
    const reordered = plan(
      prior,
      workload({ ...GPU, resource_name: "gpu-rental-medium", fallback_resource_names: ["gpu-rental-large"] }),
    );
    expect(reordered.requires_replace).toEqual([]);
    expect(reordered.diagnostics).toEqual([]);
    expect(reordered.planned.uid).toBe("wl-1");

    const removed = plan(prior, workload({ ...GPU, fallback_resource_names: ["gpu-rental-small"] }));
    expect(removed.requires_replace).toEqual([{ steps: [{ attribute_name: "fallback_resource_names" }] }]);
    expect(removed.diagnostics).toEqual([
      expect.objectContaining({
        severity: "WARNING",
        summary:
          'cws_workload "web" must be replaced: it runs on gpu-rental-medium, which is no longer resource_name or one of fallback_resource_names: a new workload replaces it',
      }),
    ]);
  });

  it("refuses bad input at plan, naming the attribute", () => {
    const r = planWorkload(provider, PRIOR, workload({ ...WEB, deploy: false }));
    expect(r.planned).toBeUndefined();
    expect(r.diagnostics.map((d) => d.summary)).toEqual(["Invalid value: deploy"]);
  });
});

describe("OpenTofu state upgrades", () => {
  const raw = (version: number) => ({
    type_name: "cws_workload",
    version,
    raw_state: { json: Buffer.from(JSON.stringify({ ...PRIOR, timeouts: { create: "5m" } })) },
  });

  it("reads state of this version as it was written", () => {
    const res = provider.upgradeResourceState(raw(1)) as { upgraded_state: { msgpack: Buffer } };
    expect(decodeMsgpack(res.upgraded_state.msgpack)).toEqual({
      ...PRIOR,
      timeouts: { create: "5m", read: null, update: null, delete: null },
    });
  });

  it("refuses state written by a newer provider", () => {
    expect(() => provider.upgradeResourceState(raw(99))).toThrow(/newer provider/);
  });
});

describe("OpenTofu provider configuration", () => {
  it("names each setting that is missing from the block and the environment", () => {
    const saved = { ...process.env };
    for (const k of ["CWS_BASE_URL", "CWS_ORG", "CWS_API_TOKEN"]) delete process.env[k];
    try {
      const p = tofuProvider();
      const res = p.configureProvider({
        config: dv({ endpoint: "http://127.0.0.1:9/v3", org: null, api_token: null }),
      }) as { diagnostics: { summary: string; detail: string }[] };
      expect(res.diagnostics.map((d) => d.summary)).toEqual(["Missing org", "Missing api_token"]);
      expect(res.diagnostics[1]!.detail).toMatch(/CWS_API_TOKEN/);
    } finally {
      process.env = saved;
    }
  });

  it("refuses an endpoint that is not an http(s) URL, naming it", () => {
    const res = provider.validateProviderConfig({
      config: dv({ endpoint: "api.example.com", org: null, api_token: null }),
    }) as { diagnostics: { summary: string }[] };
    expect(res.diagnostics.map((d) => d.summary)).toEqual(["Invalid value for endpoint"]);
  });
});
