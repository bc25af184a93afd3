/**
 * Write-only secrets and resource identity in the OpenTofu front end, called as OpenTofu calls
 * it: `password_wo` beside each password the service never returns, never in a planned or
 * upgraded state, its version a change of the kind a password change is (redeploy, replace), bad
 * combinations refused naming the attribute, a client without write-only support told so; every
 * resource identified by { org, uid }, identities upgraded and checked against the provider's org.
 */
import { describe, expect, it } from "vitest";
import { UNKNOWN_VALUE, type MsgValue } from "../../../provider/opentofu/msgpack.ts";
import { appliedState } from "../../../provider/opentofu/state.ts";
import {
  WEB,
  WORKLOAD,
  dv,
  planWorkload,
  state,
  tofuProvider,
  undv,
  workload,
  type Diag,
  type Obj,
  type PlanResponse,
} from "./fixture.ts";

const provider = tofuProvider();
const CAPS = { write_only_attributes_allowed: true };

const auth = (o: Obj): Obj => ({
  server: "registry.example.com",
  username: "ci",
  password: null,
  password_wo: null,
  password_wo_version: null,
  ...o,
});
const vmConfig = (o: Obj): Obj => ({ password: null, password_wo: null, password_wo_version: null, ...o });

const VM = { type: "VM", name: "vm", image: "ubuntu-22.04", resource_name: "vm-standard" };

const plan = (prior: Obj | null, config: Obj, caps: unknown = CAPS) =>
  planWorkload(provider, prior, config, caps);

function validate(config: Obj, caps: unknown = CAPS): Diag[] {
  return (
    provider.validateResourceConfig({
      type_name: "cws_workload",
      config: dv(config),
      client_capabilities: caps,
    }) as {
      diagnostics: Diag[];
    }
  ).diagnostics;
}
const path = (d: Diag) => d.attribute?.steps.map((s) => s.attribute_name).join(".");

describe("write-only secrets: the schema", () => {
  it("puts password_wo (write-only, sensitive) and password_wo_version beside each password the service never returns", () => {
    const schema = provider.getProviderSchema() as {
      resource_schemas: Record<string, { block: { attributes: Record<string, unknown>[] } }>;
    };
    const attrs = schema.resource_schemas.cws_workload!.block.attributes;
    for (const name of ["registry_auth", "vm_config"]) {
      const nested = (attrs.find((a) => a.name === name)!.nested_type as { attributes: Obj[] }).attributes;
      const byName = Object.fromEntries(nested.map((a) => [a.name as string, a]));
      expect(byName.password).toMatchObject({ optional: true, required: false, write_only: false });
      expect(byName.password_wo).toMatchObject({ optional: true, sensitive: true, write_only: true });
      expect(byName.password_wo_version).toMatchObject({ optional: true, write_only: false });
      expect(JSON.parse((byName.password_wo_version!.type as unknown as Buffer).toString())).toBe("number");
    }
    // Nothing else is write-only: the other resources keep their schema.
    const writeOnly = Object.entries(schema.resource_schemas).flatMap(([type, s]) =>
      JSON.stringify(s, (k, v: unknown) => (k === "type" ? undefined : v)).includes('"write_only":true')
        ? [type]
        : [],
    );
    expect(writeOnly).toEqual(["cws_workload"]);
  });
});

describe("write-only secrets: validation at plan", () => {
  it("takes password_wo with its version, for a client that supports write-only attributes", () => {
    expect(
      validate(workload({ ...WEB, registry_auth: auth({ password_wo: "s", password_wo_version: 1 }) })),
    ).toEqual([]);
    expect(
      validate(workload({ ...VM, vm_config: vmConfig({ password_wo: "pw-1234", password_wo_version: 1 }) })),
    ).toEqual([]);
    // A value known only at apply (an ephemeral resource, another resource's output) is fine.
    expect(
      validate(
        workload({ ...WEB, registry_auth: auth({ password_wo: UNKNOWN_VALUE, password_wo_version: 1 }) }),
      ),
    ).toEqual([]);
  });

  it("refuses password_wo together with password, and password_wo without its version, naming the attribute", () => {
    const both = validate(
      workload({ ...WEB, registry_auth: auth({ password: "a", password_wo: "b", password_wo_version: 1 }) }),
    );
    expect(both.map(path)).toEqual(["registry_auth.password_wo"]);
    expect(both[0]!.summary).toBe("Invalid value: registry_auth.password_wo");
    expect(both[0]!.detail).toMatch(/registry_auth\.password_wo and registry_auth\.password are both set/);

    const noVersion = validate(workload({ ...VM, vm_config: vmConfig({ password_wo: "pw-1234" }) }));
    expect(noVersion.map(path)).toEqual(["vm_config.password_wo_version"]);
    expect(noVersion[0]!.detail).toMatch(/vm_config\.password_wo needs vm_config\.password_wo_version/);

    const versionOnly = validate(
      workload({ ...WEB, registry_auth: auth({ password: "a", password_wo_version: 2 }) }),
    );
    expect(versionOnly.map(path)).toEqual(["registry_auth.password_wo_version"]);

    const neither = validate(workload({ ...WEB, registry_auth: auth({}) }));
    expect(neither.map(path)).toEqual(["registry_auth.password"]);
    expect(neither[0]!.detail).toMatch(
      /or set registry_auth\.password_wo with registry_auth\.password_wo_version/,
    );
  });

  it("tells a client without write-only support (OpenTofu before 1.11) that it would keep the value in state", () => {
    for (const caps of [null, { write_only_attributes_allowed: false }]) {
      const d = validate(
        workload({ ...WEB, registry_auth: auth({ password_wo: "s", password_wo_version: 1 }) }),
        caps,
      );
      expect(d.map(path)).toEqual(["registry_auth.password_wo"]);
      expect(d[0]!.detail).toMatch(
        /does not support write-only attributes .*OpenTofu 1\.11 or Terraform 1\.11/,
      );
      expect(
        plan(
          null,
          workload({ ...WEB, registry_auth: auth({ password_wo: "s", password_wo_version: 1 }) }),
          caps,
        ).diagnostics.map(path),
      ).toEqual(["registry_auth.password_wo"]);
    }
    // The stored form works for it as before.
    expect(validate(workload({ ...WEB, registry_auth: auth({ password: "s" }) }), null)).toEqual([]);
  });
});

describe("write-only secrets: plans", () => {
  const withWo = (version: number, secret = "s3cret") =>
    workload({ ...WEB, registry_auth: auth({ password_wo: secret, password_wo_version: version }) });
  const priorWo = (version: number) =>
    state({ ...WEB, registry_auth: auth({ password_wo_version: version }) });

  it("never plans a write-only value: a create, an update and an unchanged object all hold it null", () => {
    const created = plan(null, withWo(1));
    expect(created.diagnostics).toEqual([]);
    expect(created.planned!.registry_auth).toEqual(auth({ password_wo_version: 1 }));
    expect(JSON.stringify(created.planned)).not.toContain("s3cret");

    const same = plan(priorWo(1), withWo(1, "another"));
    expect(same.diagnostics).toEqual([]);
    expect(same.planned).toEqual(priorWo(1));
  });

  it("makes a new password_wo_version an update that redeploys a deployed workload, as a new password is", () => {
    const r = plan(priorWo(1), withWo(2, "rotated"));
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "WARNING",
        summary: 'registry_auth changes: the service redeploys cws_workload "web" (restart)',
      }),
    ]);
    expect(r.requires_replace).toEqual([]);
    expect(r.planned!.registry_auth).toEqual(auth({ password_wo_version: 2 }));
    expect(JSON.stringify(r.planned)).not.toContain("rotated");
    // Not deployed: a plain update.
    const registered = plan(
      { ...priorWo(1), status: "registered", deploy: false },
      { ...withWo(2), deploy: false },
    );
    expect(registered.diagnostics).toEqual([]);
  });

  it("makes a new vm_config.password_wo_version a replacement, as a new VM password is", () => {
    const prior = state({ ...VM, vm_config: vmConfig({ password_wo_version: 1 }) });
    const r = plan(
      prior,
      workload({ ...VM, vm_config: vmConfig({ password_wo: "pw-5678", password_wo_version: 2 }) }),
    );
    expect(r.requires_replace).toEqual([{ steps: [{ attribute_name: "vm_config" }] }]);
    expect(r.planned!.uid).toBe(UNKNOWN_VALUE);
    const same = plan(
      prior,
      workload({ ...VM, vm_config: vmConfig({ password_wo: "pw-1234", password_wo_version: 1 }) }),
    );
    expect(same.planned).toEqual(prior);
  });

  it("moves a stored password out of state when the configuration switches to password_wo, and back", () => {
    const stored = state({ ...WEB, registry_auth: auth({ password: "s3cret" }) });
    const toWo = plan(stored, withWo(1));
    expect(toWo.planned!.registry_auth).toEqual(auth({ password_wo_version: 1 }));
    // The same secret: nothing to send, so no redeploy is announced.
    expect(toWo.diagnostics).toEqual([]);
    const rotated = plan(stored, withWo(1, "new-secret"));
    expect(rotated.diagnostics.map((d) => d.summary)).toEqual([
      'registry_auth changes: the service redeploys cws_workload "web" (restart)',
    ]);
    const back = plan(priorWo(1), workload({ ...WEB, registry_auth: auth({ password: "s3cret" }) }));
    expect(back.planned!.registry_auth).toEqual(auth({ password: "s3cret" }));
    expect(back.diagnostics.map((d) => d.summary)).toEqual([
      'registry_auth changes: the service redeploys cws_workload "web" (restart)',
    ]);
  });

  it("records the version of an imported object without sending anything (the program's secret is taken as the service's)", () => {
    const imported = state({ ...WEB, registry_auth: auth({}) });
    const r = plan(imported, withWo(1));
    expect(r.planned!.registry_auth).toEqual(auth({ password_wo_version: 1 }));
    expect(r.diagnostics).toEqual([]);
    expect(r.requires_replace).toEqual([]);
  });

  it("leaves state after apply as planned: no write-only value, whatever the outputs hold", () => {
    const outputs = {
      uid: "wl-1",
      status: "running",
      registryAuth: { server: "registry.example.com", username: "ci", password: "s3cret" },
    };
    const config = withWo(2);
    const planned: Record<string, MsgValue> = { ...priorWo(2), status: UNKNOWN_VALUE };
    const applied = appliedState(WORKLOAD, planned, "wl-1", outputs, config);
    expect(applied.registry_auth).toEqual(auth({ password_wo_version: 2 }));
    expect(applied.status).toBe("running");
    // A plan that knew the object only at apply: the twins as configured, still no secret.
    const unknown = appliedState(
      WORKLOAD,
      { ...planned, registry_auth: UNKNOWN_VALUE },
      "wl-1",
      outputs,
      config,
    );
    expect(unknown.registry_auth).toEqual(auth({ password_wo_version: 2 }));
    // The stored form, planned as state had it (an import: the service never returned it).
    const kept = state({ ...WEB, registry_auth: auth({}) });
    const stored = workload({ ...WEB, registry_auth: auth({ password: "p" }) });
    expect(appliedState(WORKLOAD, kept, "wl-1", outputs, stored).registry_auth).toEqual(auth({}));
  });

  it("keeps the version and drops any write-only value when state is upgraded", () => {
    const prior = state({ ...WEB, registry_auth: auth({ password_wo_version: 3 }) });
    const res = provider.upgradeResourceState({
      type_name: "cws_workload",
      version: 1,
      raw_state: { json: Buffer.from(JSON.stringify(prior)) },
    }) as { upgraded_state: { msgpack: Buffer } };
    expect(undv(res.upgraded_state)!.registry_auth).toEqual(auth({ password_wo_version: 3 }));
    // State written before the write-only attributes existed has none of them.
    const old = JSON.parse(JSON.stringify(state({ ...WEB }))) as Obj;
    delete old.registry_auth;
    const older = provider.upgradeResourceState({
      type_name: "cws_workload",
      version: 1,
      raw_state: {
        json: Buffer.from(
          JSON.stringify({ ...old, registry_auth: { server: "r", username: "u", password: "p" } }),
        ),
      },
    }) as { upgraded_state: { msgpack: Buffer } };
    expect(undv(older.upgraded_state)!.registry_auth).toEqual(
      auth({ server: "r", username: "u", password: "p" }),
    );
  });
});

describe("resource identity", () => {
  const configured = () => {
    const p = tofuProvider();
    p.configureProvider({ config: dv({ endpoint: "http://127.0.0.1:9/v3", org: "acme", api_token: "t" }) });
    return p;
  };

  it("identifies every resource by org (optional for import) and uid (required)", () => {
    const res = provider.getResourceIdentitySchemas() as {
      identity_schemas: Record<string, { version: number; identity_attributes: Obj[] }>;
    };
    expect(Object.keys(res.identity_schemas).sort()).toEqual([
      "cws_sandbox",
      "cws_sandbox_template",
      "cws_ssh_key",
      "cws_volume",
      "cws_workload",
      "cws_workload_template",
    ]);
    for (const s of Object.values(res.identity_schemas)) {
      expect(s.version).toBe(0);
      expect(
        s.identity_attributes.map((a) => [a.name, !!a.required_for_import, !!a.optional_for_import]),
      ).toEqual([
        ["org", false, true],
        ["uid", true, false],
      ]);
    }
  });

  it("plans the identity of an object that exists, none for one still to be made", () => {
    const p = configured();
    const prior = state({ ...WEB });
    const r = p.planResourceChange({
      type_name: "cws_workload",
      prior_state: dv(prior),
      proposed_new_state: dv(prior),
      config: dv(workload({ ...WEB })),
      client_capabilities: CAPS,
    }) as PlanResponse;
    expect(undv(r.planned_identity!.identity_data)).toEqual({ org: "acme", uid: "wl-1" });
    const created = planWorkload(p, null, workload({ ...WEB }), CAPS);
    expect(created.planned_identity).toBeFalsy();
  });

  it("upgrades a stored identity, filling in the org it lacks, and refuses one of a newer version", () => {
    const p = configured();
    const up = (json: unknown, version = 0) =>
      p.upgradeResourceIdentity({
        type_name: "cws_volume",
        version,
        raw_identity: { json: Buffer.from(JSON.stringify(json)) },
      }) as { upgraded_identity?: { identity_data: { msgpack: Buffer } }; diagnostics: Diag[] };
    expect(undv(up({ org: "acme", uid: "vol-1" }).upgraded_identity!.identity_data)).toEqual({
      org: "acme",
      uid: "vol-1",
    });
    expect(undv(up({ uid: "vol-1" }).upgraded_identity!.identity_data)).toEqual({
      org: "acme",
      uid: "vol-1",
    });
    expect(up({ uid: "vol-1" }, 7).diagnostics[0]!.detail).toMatch(/version 7/);
    expect(up({}).diagnostics[0]!.detail).toMatch(/no uid/);
  });

  it("refuses to import by the identity of another org, naming both", async () => {
    const res = (await configured().importResourceState({
      type_name: "cws_ssh_key",
      id: "",
      identity: { identity_data: dv({ org: "other", uid: "key-1" }) },
    })) as { imported_resources: unknown[]; diagnostics: Diag[] };
    expect(res.imported_resources).toEqual([]);
    expect(res.diagnostics[0]!.detail).toMatch(/org "other", but the provider is configured for org "acme"/);
  });
});
