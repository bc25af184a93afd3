import { ADMIN, SNAPSHOTS } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { sshKeyView } from "../ssh-keys/views.ts";
import { sandboxTemplateView, workloadTemplateView } from "../templates/views.ts";
import { volumeView } from "../volumes/views.ts";
import { workloadOperation } from "../workloads/views.ts";

/** The admin surface under /admin (its own bearer token): reset, inspection, faults, provisioning outcomes, credits, rate limits, inventory capacity. */
export function registerAdminRoutes(ctx: ServerContext): void {
  const { lifecycle: lc, store } = ctx;
  const svc = ctx.services.admin;

  serve(ctx, ADMIN.reset, async () => {
    await svc.reset();
    return { status: 200, body: { status: "reset" } };
  });

  // Snapshots of the whole state (snapshots.ts), kept in the database.
  serve(ctx, SNAPSHOTS.listSnapshots, () => ({ status: 200, body: { items: svc.snapshots.list() } }));
  serve(ctx, SNAPSHOTS.saveSnapshot, (rc) => ({ status: 200, body: svc.saveSnapshot(rc.params.snapshot!) }));
  serve(ctx, SNAPSHOTS.restoreSnapshot, async (rc) => ({
    status: 200,
    body: await svc.restoreSnapshot(rc.params.snapshot!),
  }));
  serve(ctx, SNAPSHOTS.deleteSnapshot, (rc) => {
    svc.snapshots.delete(rc.params.snapshot!);
    return { status: 204 };
  });
  // The orgs of the seed with their credit balance (for tools that walk every org).
  serve(ctx, ADMIN.listOrgs, () => ({
    status: 200,
    body: {
      items: store.seed.orgs.map((o) => {
        const limits = ctx.rateLimits.stats(o.slug);
        return {
          org: o.slug,
          credits: svc.credits(o.slug),
          rate_limit: limits.limit,
          rate_limited: limits.rate_limited,
        };
      }),
    },
  }));
  serve(ctx, ADMIN.orgResources, (rc) => {
    const r = svc.resources(svc.org(rc.params.org!));
    return {
      status: 200,
      body: {
        workloads: r.workloads.map((w) => workloadOperation(store, w)),
        volumes: r.volumes.map((v) => volumeView(store, v)),
        ssh_keys: r.sshKeys.map(sshKeyView),
        templates: r.workloadTemplates.map(workloadTemplateView),
        sandbox_templates: r.sandboxTemplates.map(sandboxTemplateView),
      },
    };
  });

  serve(ctx, ADMIN.createFault, async (rc) => ({
    status: 201,
    body: { id: ctx.faults.add(await rc.body()).id },
  }));
  serve(ctx, ADMIN.listFaults, () => ({ status: 200, body: { items: ctx.faults.list() } }));
  serve(ctx, ADMIN.clearFaults, () => {
    ctx.faults.clear();
    return { status: 204 };
  });

  serve(ctx, ADMIN.createProvisioningRule, async (rc) => {
    const o = svc.org(rc.params.org!);
    return { status: 201, body: lc.rules.add(o, await rc.body()) };
  });
  serve(ctx, ADMIN.listProvisioningRules, (rc) => ({
    status: 200,
    body: { items: lc.rules.list(svc.org(rc.params.org!)) },
  }));
  serve(ctx, ADMIN.clearProvisioningRules, (rc) => {
    lc.rules.clear(svc.org(rc.params.org!));
    return { status: 204 };
  });

  serve(ctx, ADMIN.setCredits, async (rc) => {
    const o = svc.org(rc.params.org!);
    const body = await rc.body();
    return { status: 200, body: { org: o, balance: svc.setCredits(o, body.balance) } };
  });
  // Request rate limits (server/http/rate-limit.ts): in memory, like faults and rules.
  serve(ctx, ADMIN.getRateLimit, (rc) => ({
    status: 200,
    body: ctx.rateLimits.stats(svc.org(rc.params.org!)),
  }));
  serve(ctx, ADMIN.setRateLimit, async (rc) => {
    const o = svc.org(rc.params.org!);
    ctx.rateLimits.set(o, await rc.body());
    return { status: 200, body: ctx.rateLimits.stats(o) };
  });
  serve(ctx, ADMIN.clearRateLimit, (rc) => {
    const o = svc.org(rc.params.org!);
    ctx.rateLimits.unset(o);
    return { status: 200, body: ctx.rateLimits.stats(o) };
  });

  // Inventory capacity (server/workloads/capacity.ts): in memory, like faults and rate limits.
  serve(ctx, ADMIN.listInventory, () => ({ status: 200, body: { items: svc.inventory() } }));
  serve(ctx, ADMIN.setInventoryCapacity, async (rc) => {
    const name = rc.params.resource_name!;
    svc.stock(name); // an unknown resource is a 404 before a bad body is a 400
    const { capacity } = await rc.body();
    return { status: 200, body: svc.setCapacity(name, capacity) };
  });

  serve(ctx, ADMIN.getCredits, (rc) => ({
    status: 200,
    body: { org: rc.params.org, balance: svc.credits(svc.org(rc.params.org!)) },
  }));
}
