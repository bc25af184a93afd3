import type { ServerResponse } from "node:http";
import {
  AttachVolumeBody,
  LogsQuery,
  PageQuery,
  VerifyBody,
  WorkloadListQuery,
  type WorkloadEvent,
} from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, parseBody, parseQuery } from "../http/io.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { WorkloadRecord } from "../records.ts";
import type { StoredEvent } from "../store.ts";
import { sha256Hex } from "../util.ts";
import { workloadFull, workloadOperation, workloadState } from "../views.ts";
import { simulateExec } from "../exec-simulator.ts";
import { WorkloadAttachments } from "../workload-attachments.ts";
import { WorkloadService } from "../workloads.ts";

const W = "/orgs/:org/workloads/:uid";

/** Workload routes of spec 4.1 (sandbox-only operations live in the sandbox module). */
export function registerWorkloadRoutes(ctx: ServerContext): void {
  const { router, lifecycle: lc, store } = ctx;
  const workloads = new WorkloadService(lc);
  const attachments = new WorkloadAttachments(lc, workloads);
  const op = (w: WorkloadRecord) => workloadOperation(lc, w);

  router.get("/orgs/:org/workloads/vm-images", () => ({ status: 200, body: store.seed.vm_images }));
  router.get("/orgs/:org/workloads/bm-images", () => ({ status: 200, body: store.seed.bm_images }));

  router.post("/orgs/:org/workloads/verify", async (rc) => {
    const body = await parseBody(rc, VerifyBody);
    const w = workloads.get(rc.org, body.uid);
    const digest = body.digest.replace(/^sha256:/, "");
    return { status: 200, body: { verified: digest === sha256Hex(w.image) } };
  });

  router.post("/orgs/:org/workloads", async (rc) => {
    const body = await rc.json();
    if (body === undefined)
      throw new ApiError("INVALID_BODY", "request body is required (workload create body)");
    const w = workloads.create(rc.org, body, { deploymentType: rc.deploymentType });
    return { status: 201, body: op(w) };
  });

  router.get("/orgs/:org/workloads", (rc) => {
    const q = parseQuery(rc, WorkloadListQuery);
    const page = paginate(store.workloads.list(rc.org), q, (w) => {
      if (q.status ? w.status !== q.status : w.status === "deleted") return false;
      if (q.type && w.type !== q.type) return false;
      if (q.project_id !== undefined && (w.project_id ?? "") !== q.project_id) return false;
      if (q.name !== undefined && w.name !== q.name) return false;
      return true;
    });
    return { status: 200, body: { items: page.items.map(op), next_cursor: page.next_cursor } };
  });

  router.get(W, (rc) => ({ status: 200, body: workloadFull(lc, workloads.get(rc.org, rc.params.uid!)) }));

  router.patch(W, async (rc) => {
    const w = await workloads.update(rc.org, rc.params.uid!, await rc.json());
    return { status: 200, body: workloadFull(lc, w) };
  });

  router.delete(W, async (rc) => {
    await lc.delete(workloads.get(rc.org, rc.params.uid!));
    return { status: 204 };
  });

  router.post(`${W}/deploy`, async (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    await lc.deploy(w);
    return { status: 200, body: op(w) };
  });

  router.post(`${W}/suspend`, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    lc.suspend(w);
    return { status: 200, body: op(w) };
  });

  router.post(`${W}/reboot`, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    lc.reboot(w);
    return { status: 200, body: op(w) };
  });

  router.get(`${W}/state`, (rc) => {
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

  router.get(`${W}/events`, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    const q = parseQuery(rc, PageQuery);
    let after = 0;
    if (q.cursor !== undefined) {
      after = /^\d+$/.test(q.cursor) ? Number(q.cursor) : -1;
      if (after <= 0 || !store.eventExists("workload", w.uid, after)) {
        throw new ApiError("INVALID_QUERY", `cursor ${q.cursor} is not an event cursor of this workload`);
      }
    }
    const limit = q.limit ?? 1000;
    const rows = store.events<WorkloadEvent>("workload", w.uid, after, limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    return {
      status: 200,
      body: {
        items: page.map((r) => r.record),
        next_cursor: more ? String(page[page.length - 1]!.id) : null,
      },
    };
  });

  router.get(`${W}/logs`, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    const q = parseQuery(rc, LogsQuery);
    if (q.type !== undefined && w.type !== "VM")
      throw new ApiError(
        "INVALID_QUERY",
        `type (serial or qemu) is only supported for VM workloads; ${w.uid} is ${w.type}`,
      );
    streamLogs(ctx, rc.res, rc.req, w, q);
    return undefined;
  });

  // RENTAL exec: streamed text/plain. A sandbox module registers its own POST exec with
  // { first: true } and passes non-sandbox workloads on with NEXT.
  router.post(`${W}/exec`, (rc) => {
    const w = workloads.get(rc.org, rc.params.uid!);
    if (w.type === "SANDBOX") {
      if (w.status !== "running")
        throw new ApiError("WORKLOAD_SANDBOX_NOT_DEPLOYED", `sandbox ${w.uid} is ${w.status}, not running`);
      throw new ApiError(
        "WORKLOAD_SANDBOX_NO_CAPACITY",
        "sandbox runtime not enabled: this server cannot run commands in sandboxes",
      );
    }
    if (w.type !== "RENTAL")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `exec is only supported for RENTAL workloads (workload ${w.uid} is ${w.type})`,
      );
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
    if (w.status !== "running")
      throw new ApiError(
        "WORKLOAD_NOT_RUNNING",
        `cannot exec in workload ${w.uid}: its status is ${w.status}, not running`,
      );
    const lines = simulateExec(w, argv, lc);
    rc.res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-cws-exec-simulated": "true" });
    for (const line of lines) rc.res.write(`${line}\n`);
    rc.res.end();
    lc.recordEvent(w, {
      event_type: "EXEC",
      reason: "Exec",
      message: `exec: ${argv.join(" ")}`,
      exit_code: 0,
    });
    return undefined;
  });

  router.put(`${W}/volumes/:volume`, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "attach a volume to");
    const body = await parseBody(rc, AttachVolumeBody);
    return { status: 200, body: attachments.attachVolume(w, rc.params.volume!, body) };
  });

  router.delete(`${W}/volumes/:volume`, (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach a volume from");
    attachments.detachVolume(w, rc.params.volume!);
    return { status: 204 };
  });

  router.put(`${W}/ssh-keys/:key`, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "attach an SSH key to");
    return { status: 200, body: await attachments.attachSshKey(w, rc.params.key!) };
  });

  router.delete(`${W}/ssh-keys/:key`, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach an SSH key from");
    await attachments.detachSshKey(w, rc.params.key!);
    return { status: 204 };
  });
}

// ---- logs ---------------------------------------------------------------------------------

function logLines(w: WorkloadRecord, e: StoredEvent<WorkloadEvent>, vmType: string | undefined): string[] {
  const prefix = w.type === "VM" ? `[${vmType ?? "serial"}] ` : "";
  const at = e.record.created_at;
  const out = [`${at} ${prefix}${e.record.message ?? ""}`];
  if (e.record.event_type === "STATUS_CHANGE" && e.record.new_status === "running") {
    if (w.type === "RENTAL") {
      const cmd = [...w.commands, ...w.args].join(" ");
      out.push(`${at} starting ${e.record.container_image ?? w.image}${cmd ? ` with '${cmd}'` : ""}`);
      for (const p of w.ports)
        out.push(`${at} listening on 0.0.0.0:${p.port}/${(p.protocol ?? "TCP").toLowerCase()}`);
    } else if (w.type === "VM") {
      out.push(`${at} ${prefix}${e.record.container_image ?? w.image} login: `);
    }
  }
  return out;
}

/** Writes a workload's log text (and, with follow, keeps streaming); the API route and the dashboard use it. */
export function streamLogs(
  ctx: ServerContext,
  res: ServerResponse,
  req: { on(ev: "close", fn: () => void): unknown },
  w: WorkloadRecord,
  q: { since?: string; tail?: number; follow?: string; previous?: string; type?: string },
): void {
  const lc: Lifecycle = ctx.lifecycle;
  // Container output is simulated from the status changes of each deployment (instance = deploy_id).
  const events = lc.store
    .events<WorkloadEvent>("workload", w.uid)
    .filter((e) => Number(e.meta.deploy_id) > 0 && e.record.event_type === "STATUS_CHANGE");
  let instance = w.deploy_id;
  if (q.previous === "true") {
    const earlier = events.map((e) => Number(e.meta.deploy_id)).filter((d) => d < w.deploy_id);
    instance = earlier.length ? Math.max(...earlier) : -1;
  }
  const since = q.since ? Date.parse(q.since) : undefined;
  let lines = events
    .filter(
      (e) =>
        Number(e.meta.deploy_id) === instance &&
        (since === undefined || Date.parse(e.record.created_at) >= since),
    )
    .flatMap((e) => logLines(w, e, q.type));
  if (q.tail !== undefined) lines = q.tail === 0 ? [] : lines.slice(-q.tail);
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" });
  // A follower learns at once that the stream is open, even before the first line.
  res.flushHeaders();
  for (const line of lines) res.write(`${line}\n`);
  if (q.follow !== "true" || q.previous === "true" || w.status === "deleted") {
    res.end();
    return;
  }
  const onEvent = (x: WorkloadRecord, e: StoredEvent<WorkloadEvent>) => {
    if (x.uid !== w.uid || e.record.event_type !== "STATUS_CHANGE") return;
    for (const line of logLines(x, e, q.type)) res.write(`${line}\n`);
    if (x.status === "deleted") finish();
  };
  const finish = () => {
    lc.off("workload-event", onEvent);
    if (!res.writableEnded) res.end();
  };
  lc.on("workload-event", onEvent);
  req.on("close", finish);
  res.on("close", finish);
}
