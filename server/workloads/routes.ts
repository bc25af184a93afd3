import type { ServerResponse } from "node:http";
import { WORKLOADS } from "../../api/endpoints/index.ts";
import type { LogsQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { ApiError, zodError } from "../http/errors.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { workloadFull, workloadOperation, workloadState } from "./views.ts";

/**
 * Workload routes of spec 4.1: requests to WorkloadService (create, read, PATCH),
 * WorkloadAttachments (volumes, SSH keys), Lifecycle (deploy, suspend, reboot, delete),
 * WorkloadLogs and WorkloadExec. Sandbox-only operations live in the sandbox module.
 */
export function registerWorkloadRoutes(ctx: ServerContext): void {
  const { lifecycle: lc, store } = ctx;
  const { workloads, attachments, exec } = ctx.services;
  const op = (w: WorkloadRecord) => workloadOperation(store, w);

  serve(ctx, WORKLOADS.vmImages, () => ({ status: 200, body: store.seed.vm_images }));
  serve(ctx, WORKLOADS.bmImages, () => ({ status: 200, body: store.seed.bm_images }));

  serve(ctx, WORKLOADS.verify, async (rc) => {
    const body = await rc.body();
    return { status: 200, body: { verified: workloads.verify(rc.org, body.uid, body.digest) } };
  });

  serve(ctx, WORKLOADS.create, async (rc) => {
    const body = await rc.json();
    if (body === undefined)
      throw new ApiError("INVALID_BODY", "request body is required (workload create body)");
    const w = workloads.create(rc.org, body, { deploymentType: rc.deploymentType });
    return { status: 201, body: op(w) };
  });

  serve(ctx, WORKLOADS.list, (rc) => {
    const page = workloads.list(rc.org, rc.parsedQuery());
    return { status: 200, body: { items: page.items.map(op), next_cursor: page.next_cursor } };
  });

  serve(ctx, WORKLOADS.get, (rc) => ({
    status: 200,
    body: workloadFull(store, workloads.get(rc.org, rc.params.uid!)),
  }));

  serve(ctx, WORKLOADS.update, async (rc) => {
    const w = await workloads.update(rc.org, rc.params.uid!, await rc.json());
    return { status: 200, body: workloadFull(store, w) };
  });

  serve(ctx, WORKLOADS.delete, async (rc) => {
    await lc.delete(workloads.get(rc.org, rc.params.uid!));
    return { status: 204 };
  });

  serve(ctx, WORKLOADS.deploy, async (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    await lc.deploy(w);
    return { status: 200, body: op(w) };
  });

  serve(ctx, WORKLOADS.suspend, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    lc.suspend(w);
    return { status: 200, body: op(w) };
  });

  serve(ctx, WORKLOADS.reboot, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    lc.reboot(w);
    return { status: 200, body: op(w) };
  });

  serve(ctx, WORKLOADS.state, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    // While a deploy runs, Retry-After says when it ends (seconds, to the millisecond): a
    // poller that waits that long notices the outcome at once without asking in between.
    const due = w.status === "provisioning" ? w.provision_due_at : undefined;
    const headers =
      due === undefined
        ? undefined
        : { "retry-after": (Math.max(0, due - ctx.clock.now()) / 1000).toFixed(3) };
    return { status: 200, body: workloadState(w), headers };
  });

  serve(ctx, WORKLOADS.events, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    return { status: 200, body: workloads.events(w, rc.parsedQuery()) };
  });

  serve(ctx, WORKLOADS.logs, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    const q = rc.parsedQuery();
    ctx.services.logs.check(w, q);
    streamLogs(ctx, rc.res, rc.req, w, q);
    return undefined;
  });

  // RENTAL exec: streamed text/plain. A sandbox module registers its own POST exec with
  // { first: true } and passes non-sandbox workloads on with NEXT.
  serve(ctx, WORKLOADS.exec, async (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    exec.checkTarget(w);
    // A body, when one is sent, is the endpoint's (a SANDBOX's ExecBody): malformed is 400 here too.
    const raw = await rc.json();
    if (raw !== undefined) {
      const parsed = WORKLOADS.exec.body.safeParse(raw);
      if (!parsed.success) throw zodError(parsed.error, "WORKLOAD_EXEC_INVALID");
    }
    for (const k of rc.query.keys()) {
      if (k !== "command")
        throw new ApiError(
          "INVALID_QUERY",
          `unknown query parameter ${k} (exec takes command, repeated once per argument)`,
        );
    }
    const argv = rc.query.getAll("command");
    if (argv.length === 0 || argv[0] === "")
      throw new ApiError(
        "INVALID_QUERY",
        "command is required: repeat the command query parameter once per argument",
      );
    const lines = exec.run(w, argv);
    rc.res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-cws-exec-simulated": "true" });
    for (const line of lines) rc.res.write(`${line}\n`);
    rc.res.end();
    return undefined;
  });

  serve(ctx, WORKLOADS.attachVolume, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "attach a volume to");
    const body = await rc.body();
    return { status: 200, body: attachments.attachVolume(w, rc.params.volume!, body) };
  });

  serve(ctx, WORKLOADS.detachVolume, (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach a volume from");
    attachments.detachVolume(w, rc.params.volume!);
    return { status: 204 };
  });

  serve(ctx, WORKLOADS.attachSshKey, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "attach an SSH key to");
    return { status: 200, body: await attachments.attachSshKey(w, rc.params.key!) };
  });

  serve(ctx, WORKLOADS.detachSshKey, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach an SSH key from");
    await attachments.detachSshKey(w, rc.params.key!);
    return { status: 204 };
  });
}

/**
 * Writes a workload's log text as text/plain (WorkloadLogs) and, when the query follows, keeps
 * writing new lines until the workload is deleted or either side closes. The API route and the
 * dashboard use it.
 */
export function streamLogs(
  ctx: ServerContext,
  res: ServerResponse,
  req: { on(ev: "close", fn: () => void): unknown },
  w: WorkloadRecord,
  q: LogsQuery,
): void {
  const logs = ctx.services.logs;
  const lines = logs.lines(w, q);
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" });
  // A follower learns at once that the stream is open, even before the first line.
  res.flushHeaders();
  for (const line of lines) res.write(`${line}\n`);
  if (!logs.follows(w, q)) {
    res.end();
    return;
  }
  const finish = () => {
    stop();
    if (!res.writableEnded) res.end();
  };
  const stop = logs.follow(w, q, (line) => res.write(`${line}\n`), finish);
  req.on("close", finish);
  res.on("close", finish);
}
