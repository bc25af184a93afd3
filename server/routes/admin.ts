import { CreditsBody, FaultCreate, ProvisioningRuleCreate } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { parseBody } from "../http/io.ts";
import { applySeed } from "../seed/apply.ts";
import {
  sandboxTemplateView,
  sshKeyView,
  volumeView,
  workloadOperation,
  workloadTemplateView,
} from "../views.ts";
import { credits, setCredits } from "../billing.ts";
import { orgExists } from "../auth.ts";

/** The admin surface under /admin (its own bearer token): reset, inspection, faults, provisioning outcomes, credits. */
export function registerAdminRoutes(ctx: ServerContext): void {
  const { admin, store, lifecycle: lc } = ctx;
  const auth = { auth: "admin" as const };
  const org = (slug: string) => {
    if (!orgExists(lc.store, slug))
      throw new ApiError("ORG_NOT_FOUND", `organization ${slug} is not in the seed`);
    return slug;
  };

  admin.post(
    "/reset",
    async () => {
      const seed = store.seed;
      await lc.hooks.onReset?.();
      lc.resetRuntime();
      store.wipe();
      applySeed(store, seed, lc.now());
      ctx.faults.clear();
      lc.start();
      return { status: 200, body: { status: "reset" } };
    },
    auth,
  );

  admin.get(
    "/orgs/:org/resources",
    (rc) => {
      const o = org(rc.params.org!);
      return {
        status: 200,
        body: {
          workloads: store.workloads
            .list(o)
            .filter((w) => w.status !== "deleted")
            .map((w) => workloadOperation(lc, w)),
          volumes: store.volumes.list(o).map((v) => volumeView(lc, v)),
          ssh_keys: store.sshKeys.list(o).map(sshKeyView),
          templates: store.templates.list(o).map(workloadTemplateView),
          sandbox_templates: store.sandboxTemplates
            .list(o)
            .filter((t) => t.kind === "USER")
            .map(sandboxTemplateView),
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
      const o = org(rc.params.org!);
      const rule = lc.rules.add(o, await parseBody(rc, ProvisioningRuleCreate, { reason: "ADMIN_INVALID" }));
      return { status: 201, body: rule };
    },
    auth,
  );
  admin.get(
    "/orgs/:org/provisioning",
    (rc) => ({ status: 200, body: { items: lc.rules.list(org(rc.params.org!)) } }),
    auth,
  );
  admin.delete(
    "/orgs/:org/provisioning",
    (rc) => {
      lc.rules.clear(org(rc.params.org!));
      return { status: 204 };
    },
    auth,
  );

  admin.post(
    "/orgs/:org/credits",
    async (rc) => {
      const o = org(rc.params.org!);
      const body = await parseBody(rc, CreditsBody, { reason: "ADMIN_INVALID" });
      setCredits(lc.store, o, body.balance);
      return { status: 200, body: { org: o, balance: credits(lc.store, o) } };
    },
    auth,
  );
  admin.get(
    "/orgs/:org/credits",
    (rc) => ({ status: 200, body: { org: rc.params.org, balance: credits(lc.store, org(rc.params.org!)) } }),
    auth,
  );
}
