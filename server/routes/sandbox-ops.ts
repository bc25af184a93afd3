import { ExecBody, ForkBody, LIMITS, nameViolation, PublishBody } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError, violationError } from "../http/errors.ts";
import { parseBody } from "../http/io.ts";
import { NEXT } from "../http/router.ts";
import type { SandboxTemplateRecord } from "../records.ts";
import type { SandboxService } from "../sandbox/service.ts";
import { newUid } from "../util.ts";
import { sandboxTemplateView, workloadOperation } from "../views.ts";
import { WorkloadService } from "../workloads.ts";
import { runOn, sandboxApiError, sandboxRoute, targetOf } from "./sandbox-http.ts";
import { costPerHour } from "../billing.ts";

const W = "/orgs/:org/workloads/:uid";

/** Name of a fork made without a name: `{parent}-fork`, the parent's part cut to keep 32 characters. */
export function forkName(parent: string): string {
  const suffix = "-fork";
  const base = parent.slice(0, LIMITS.workloadNameMax - suffix.length).replace(/-+$/, "");
  return `${base}${suffix}`;
}

/** Deploy pool, freeze, thaw, fork, publish and exec of sandboxes. */
export function registerSandboxOpRoutes(ctx: ServerContext, svc: SandboxService): void {
  const { router, lifecycle: lc, store } = ctx;
  const workloads = new WorkloadService(lc);

  // The generic deploy route answers; this notes the pool (X-Deployment-Type) the deploy targets.
  router.post(
    `${W}/deploy`,
    (rc) => {
      svc.noteDeployPool(rc.params.uid!, rc.deploymentType);
      return NEXT;
    },
    { first: true },
  );

  router.post(
    `${W}/freeze`,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "freeze", "deployed");
      await svc.freeze(t).catch((e: unknown) => {
        throw sandboxApiError(svc, e, t);
      });
      return { status: 200, body: workloadOperation(lc, t.w) };
    }),
  );

  router.post(
    `${W}/thaw`,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "thaw", "deployed");
      await svc.thaw(t).catch((e: unknown) => {
        throw sandboxApiError(svc, e, t);
      });
      return { status: 200, body: workloadOperation(lc, t.w) };
    }),
  );

  router.post(
    `${W}/fork`,
    sandboxRoute(svc, async (rc) => {
      const pool = svc.poolOf(rc.deploymentType);
      const parent = svc.target(rc.org, rc.params.uid!, pool, "fork", "running");
      const body = await parseBody(rc, ForkBody, { optional: true });
      const p = parent.w;
      const name = body.name ?? forkName(p.name);
      const nv = nameViolation("SANDBOX", name);
      if (nv) throw violationError([nv]);
      const cfg = p.sandbox_config!;
      const projectId = body.project_id ?? p.project_id;
      const createBody: Record<string, unknown> = {
        type: "SANDBOX",
        name,
        image: p.image,
        sandbox_config: {
          ttl_sec: body.sandbox_config?.ttl_sec ?? cfg.ttl_sec,
          idle_timeout_sec: body.sandbox_config?.idle_timeout_sec ?? cfg.idle_timeout_sec,
        },
      };
      if (p.resource_name) createBody.resource_name = p.resource_name;
      if (p.ports.length) createBody.ports = p.ports.map((x) => ({ ...x }));
      if (p.ssh_keys.length) createBody.ssh_keys = [...p.ssh_keys];
      if (projectId) createBody.project_id = projectId;
      const child = workloads.create(rc.org, createBody, {
        deploymentType: pool,
        parentWorkloadUid: p.uid,
      });
      svc.noteFork(child.uid, p.uid, pool);
      try {
        await lc.deploy(child);
      } catch (e) {
        // Created and deployed in one operation: a child that cannot be deployed is not kept.
        svc.forgetFork(child.uid);
        await lc.delete(child);
        throw e;
      }
      return { status: 201, body: workloadOperation(lc, child) };
    }),
  );

  router.post(
    `${W}/publish`,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "publish", "running");
      const body = await parseBody(rc, PublishBody, { reason: "SANDBOX_TEMPLATE_INVALID" });
      const src = svc.template(t.w);
      const now = lc.now();
      const tpl: SandboxTemplateRecord = {
        uid: newUid("tpl"),
        org: rc.org,
        name: body.name,
        display_name: body.display_name ?? body.name,
        description: body.description ?? "",
        kind: "USER",
        status: "PENDING",
        resource_name: src?.resource_name ?? t.w.resource_name,
        cost_per_hour: src?.cost_per_hour ?? costPerHour(lc.store, t.w),
        frozen_cost_per_hour: src?.frozen_cost_per_hour ?? 0,
        desktop: Boolean(src?.desktop),
        source_workload_uid: t.w.uid,
        created_at: now,
        updated_at: now,
      };
      store.sandboxTemplates.put(tpl);
      svc.publish(t, tpl);
      return { status: 202, body: sandboxTemplateView(tpl) };
    }),
  );

  // Sandbox exec ({ cmd } -> { stdout, stderr, code, timed_out }); other types go on to RENTAL exec.
  router.post(
    `${W}/exec`,
    sandboxRoute(svc, async (rc) => {
      const w = store.workloads.getIn(rc.org, rc.params.uid!);
      if (!w || w.type !== "SANDBOX") return NEXT;
      const t = svc.target(rc.org, w.uid, svc.poolOf(rc.deploymentType), "exec in", "running");
      const body = await parseBody(rc, ExecBody, { reason: "WORKLOAD_EXEC_INVALID" });
      if (body.cmd.includes("\0"))
        throw new ApiError("WORKLOAD_EXEC_INVALID", "cmd must not contain NUL characters");
      const timeout = body.timeout_sec ?? LIMITS.execTimeoutDefaultSec;
      const r = await runOn(svc, t, () => t.rt.exec(t.live.id, body.cmd, timeout));
      return {
        status: 200,
        body: { stdout: r.stdout, stderr: r.stderr, code: r.code, timed_out: r.timedOut },
      };
    }),
    { first: true },
  );
}
