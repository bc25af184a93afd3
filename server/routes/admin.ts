import { CreditsBody, FaultCreate, ProvisioningRuleCreate } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody } from "../http/io.ts";
import {
  sandboxTemplateView,
  sshKeyView,
  volumeView,
  workloadOperation,
  workloadTemplateView,
} from "../views.ts";

/** The admin surface under /admin (its own bearer token): reset, inspection, faults, provisioning outcomes, credits. */
export function registerAdminRoutes(ctx: ServerContext): void {
  const { admin, lifecycle: lc } = ctx;
  const svc = ctx.services.admin;
  const auth = { auth: "admin" as const };

  admin.post(
    "/reset",
    async () => {
      await svc.reset();
      return { status: 200, body: { status: "reset" } };
    },
    auth,
  );

  admin.get(
    "/orgs/:org/resources",
    (rc) => {
      const r = svc.resources(svc.org(rc.params.org!));
      return {
        status: 200,
        body: {
          workloads: r.workloads.map((w) => workloadOperation(lc, w)),
          volumes: r.volumes.map((v) => volumeView(lc, v)),
          ssh_keys: r.sshKeys.map(sshKeyView),
          templates: r.workloadTemplates.map(workloadTemplateView),
          sandbox_templates: r.sandboxTemplates.map(sandboxTemplateView),
        },
      };
    },
    auth,
  );

  admin.post(
    "/faults",
    async (rc) => ({
      status: 201,
      body: { id: ctx.faults.add(await parseBody(rc, FaultCreate, { reason: "ADMIN_INVALID" })).id },
    }),
    auth,
  );
  admin.get("/faults", () => ({ status: 200, body: { items: ctx.faults.list() } }), auth);
  admin.delete(
    "/faults",
    () => {
      ctx.faults.clear();
      return { status: 204 };
    },
    auth,
  );

  admin.post(
    "/orgs/:org/provisioning",
    async (rc) => {
      const o = svc.org(rc.params.org!);
      const rule = lc.rules.add(o, await parseBody(rc, ProvisioningRuleCreate, { reason: "ADMIN_INVALID" }));
      return { status: 201, body: rule };
    },
    auth,
  );
  admin.get(
    "/orgs/:org/provisioning",
    (rc) => ({ status: 200, body: { items: lc.rules.list(svc.org(rc.params.org!)) } }),
    auth,
  );
  admin.delete(
    "/orgs/:org/provisioning",
    (rc) => {
      lc.rules.clear(svc.org(rc.params.org!));
      return { status: 204 };
    },
    auth,
  );

  admin.post(
    "/orgs/:org/credits",
    async (rc) => {
      const o = svc.org(rc.params.org!);
      const body = await parseBody(rc, CreditsBody, { reason: "ADMIN_INVALID" });
      return { status: 200, body: { org: o, balance: svc.setCredits(o, body.balance) } };
    },
    auth,
  );
  admin.get(
    "/orgs/:org/credits",
    (rc) => ({ status: 200, body: { org: rc.params.org, balance: svc.credits(svc.org(rc.params.org!)) } }),
    auth,
  );
}
