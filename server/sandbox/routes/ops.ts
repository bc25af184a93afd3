// Routes of the operations on sandboxes: deploy pool, freeze, thaw, fork, publish, exec.

import { SANDBOXES, WORKLOADS } from "../../../api/endpoints/index.ts";
import { LIMITS } from "../../../api/index.ts";
import type { ServerContext } from "../../context.ts";
import { ApiError } from "../../http/errors.ts";
import { serve } from "../../http/endpoints.ts";
import { NEXT } from "../../http/router.ts";
import type { SandboxService } from "../service.ts";
import { sandboxTemplateView } from "../../templates/views.ts";
import { workloadOperation } from "../../workloads/views.ts";
import { runOn, sandboxApiError, sandboxRoute, targetInPool, targetOf } from "./common.ts";

/** Deploy pool, freeze, thaw, fork, publish and exec of sandboxes: requests to SandboxService. */
export function registerSandboxOpRoutes(ctx: ServerContext, svc: SandboxService): void {
  // The generic deploy route answers; this notes the pool (X-Deployment-Type) the deploy targets.
  serve(
    ctx,
    WORKLOADS.deploy,
    (rc) => {
      svc.noteDeployPool(rc.params.uid!, rc.deploymentType);
      return NEXT;
    },
    { first: true },
  );

  // Freeze and thaw: the same request on a deployed sandbox, one runtime operation each.
  for (const [endpoint, action] of [
    [SANDBOXES.freeze, "freeze"],
    [SANDBOXES.thaw, "thaw"],
  ] as const) {
    serve(
      ctx,
      endpoint,
      sandboxRoute(svc, async (rc) => {
        const t = targetOf(svc, rc, action, "deployed");
        await svc[action](t).catch((e: unknown) => {
          throw sandboxApiError(svc, e, t);
        });
        return { status: 200, body: workloadOperation(ctx.store, t.w) };
      }),
    );
  }

  serve(
    ctx,
    SANDBOXES.fork,
    sandboxRoute(svc, async (rc) => {
      const { pool, t: parent } = targetInPool(svc, rc, "fork", "running");
      const body = await rc.body();
      const child = await svc.fork(parent, pool, body);
      return { status: 201, body: workloadOperation(ctx.store, child) };
    }),
  );

  serve(
    ctx,
    SANDBOXES.publish,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "publish", "running");
      const body = await rc.body();
      return { status: 202, body: sandboxTemplateView(svc.publish(t, body)) };
    }),
  );

  // Sandbox exec ({ cmd } -> { stdout, stderr, code, timed_out }); other types go on to RENTAL exec.
  serve(
    ctx,
    WORKLOADS.exec,
    sandboxRoute(svc, async (rc) => {
      if (!svc.isSandbox(rc.org, rc.params.uid!)) return NEXT;
      const t = targetOf(svc, rc, "exec in", "running");
      const body = await rc.body();
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
