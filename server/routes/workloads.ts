import type { ServerResponse } from "node:http";
import {
  AttachVolumeBody,
  LogsQuery,
  PageQuery,
  VerifyBody,
  WorkloadListQuery,
  redeploys,
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
import { Workloads } from "../workloads.ts";

const W = "/orgs/:org/workloads/:uid";

/** Workload routes of spec 4.1 (sandbox-only operations live in the sandbox module). */
export function registerWorkloadRoutes(ctx: ServerContext): void {
  const { router, lifecycle: lc, store } = ctx;
  const workloads = new Workloads(lc);
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

  router.get(`${W}/state`, (rc) => ({
    status: 200,
    body: workloadState(workloads.get(rc.org, rc.params.uid!)),
  }));

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
    if (w.type !== "RENTAL")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `volumes can only be attached to RENTAL workloads (workload ${w.uid} is ${w.type})`,
      );
    const v = store.volumes.getIn(rc.org, rc.params.volume!);
    if (!v) throw new ApiError("VOLUME_NOT_FOUND", `volume ${rc.params.volume} not found`);
    workloads.checkVolumeFree(v.uid, v.workload_uid, w.uid);
    const clash = w.volumes.find((m) => m.mount_path === body.mount_path && m.uid !== v.uid);
    if (clash)
      throw new ApiError(
        "WORKLOAD_FIELD_INVALID",
        `mount_path ${body.mount_path} is used by volume ${clash.uid}`,
      );
    const mount = { uid: v.uid, mount_path: body.mount_path, read_only: body.read_only ?? false };
    const existing = w.volumes.find((m) => m.uid === v.uid);
    const changed =
      !existing || existing.mount_path !== mount.mount_path || existing.read_only !== mount.read_only;
    if (changed) {
      const redeploy = redeploys(w.type, w.status, ["volumes"]);
      if (redeploy) lc.assertCanRedeploy(w);
      const old = w.volumes;
      w.volumes = existing ? w.volumes.map((m) => (m.uid === v.uid ? mount : m)) : [...w.volumes, mount];
      store.transaction(() => {
        w.updated_at = lc.now();
        workloads.remount(w, old, w.volumes);
        store.workloads.put(w);
        lc.recordEvent(w, {
          event_type: "VOLUME_ATTACHED",
          reason: "VolumeAttached",
          message: `volume ${v.uid} mounted at ${mount.mount_path}`,
        });
        if (redeploy) lc.redeploy(w);
      });
    }
    return {
      status: 200,
      body: {
        workload_uid: w.uid,
        volume_uid: v.uid,
        mount_path: mount.mount_path,
        read_only: mount.read_only,
      },
    };
  });

  router.delete(`${W}/volumes/:volume`, (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach a volume from");
    const mount = w.volumes.find((m) => m.uid === rc.params.volume);
    if (!mount)
      throw new ApiError(
        "WORKLOAD_VOLUME_NOT_ATTACHED",
        `volume ${rc.params.volume} is not attached to workload ${w.uid}`,
      );
    const redeploy = redeploys(w.type, w.status, ["volumes"]);
    if (redeploy) lc.assertCanRedeploy(w);
    const old = w.volumes;
    w.volumes = w.volumes.filter((m) => m.uid !== mount.uid);
    store.transaction(() => {
      w.updated_at = lc.now();
      workloads.remount(w, old, w.volumes);
      store.workloads.put(w);
      lc.recordEvent(w, {
        event_type: "VOLUME_DETACHED",
        reason: "VolumeDetached",
        message: `volume ${mount.uid} detached`,
      });
      if (redeploy) lc.redeploy(w);
    });
    return { status: 204 };
  });

  router.put(`${W}/ssh-keys/:key`, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "attach an SSH key to");
    const key = store.sshKeys.getIn(rc.org, rc.params.key!);
    if (!key) throw new ApiError("SSH_KEY_NOT_FOUND", `SSH key ${rc.params.key} not found`);
    if (!w.ssh_keys.includes(key.uid)) {
      const redeploy = redeploys(w.type, w.status, ["ssh_keys"]);
      if (redeploy) lc.assertCanRedeploy(w);
      const before = structuredClone(w);
      w.ssh_keys = [...w.ssh_keys, key.uid];
      w.updated_at = lc.now();
      store.transaction(() => {
        store.workloads.put(w);
        lc.recordEvent(w, {
          event_type: "SSH_KEY_ATTACHED",
          reason: "SshKeyAttached",
          message: `SSH key ${key.uid} attached`,
        });
        if (redeploy) lc.redeploy(w);
      });
      if (w.type === "SANDBOX") await lc.hooks.onUpdate?.(before, w);
    }
    return { status: 200, body: { workload_uid: w.uid, ssh_key_uid: key.uid } };
  });

  router.delete(`${W}/ssh-keys/:key`, async (rc) => {
    const w = workloads.getLive(rc.org, rc.params.uid!, "detach an SSH key from");
    const uid = rc.params.key!;
    if (!w.ssh_keys.includes(uid))
      throw new ApiError(
        "WORKLOAD_SSH_KEY_NOT_ATTACHED",
        `SSH key ${uid} is not attached to workload ${w.uid}`,
      );
    if (w.type === "BM" && w.ssh_keys.length === 1) {
      throw new ApiError(
        "WORKLOAD_BM_SSH_KEYS_REQUIRED",
        `ssh_keys must keep at least one SSH key for BM workloads; ${uid} is the last one`,
      );
    }
    const redeploy = redeploys(w.type, w.status, ["ssh_keys"]);
    if (redeploy) lc.assertCanRedeploy(w);
    const before = structuredClone(w);
    w.ssh_keys = w.ssh_keys.filter((k) => k !== uid);
    w.updated_at = lc.now();
    store.transaction(() => {
      store.workloads.put(w);
      lc.recordEvent(w, {
        event_type: "SSH_KEY_DETACHED",
        reason: "SshKeyDetached",
        message: `SSH key ${uid} detached`,
      });
      if (redeploy) lc.redeploy(w);
    });
    if (w.type === "SANDBOX") await lc.hooks.onUpdate?.(before, w);
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

// ---- exec simulation ----------------------------------------------------------------------

/** What a RENTAL exec prints: a few common commands are simulated, anything else is acknowledged. */
export function simulateExec(w: WorkloadRecord, argv: string[], lc: Lifecycle): string[] {
  const [cmd, ...args] = argv as [string, ...string[]];
  const envs = [...w.envs.map((e) => `${e.name}=${e.value}`), `HOSTNAME=${w.name}`];
  switch (cmd) {
    case "echo":
      return [args.join(" ")];
    case "env":
    case "printenv":
      if (args.length)
        return args
          .map((a) => w.envs.find((e) => e.name === a)?.value ?? (a === "HOSTNAME" ? w.name : ""))
          .filter((x) => x !== "");
      return envs;
    case "hostname":
      return [w.name];
    case "whoami":
      return ["root"];
    case "id":
      return ["uid=0(root) gid=0(root) groups=0(root)"];
    case "pwd":
      return ["/"];
    case "date":
      return [lc.now()];
    case "true":
      return [];
    case "uname":
      return [args.includes("-a") ? `Linux ${w.name} 6.1.0-cws #1 SMP x86_64 GNU/Linux` : "Linux"];
    case "cat":
      if (args[0] === "/etc/hostname") return [w.name];
      break;
    case "ls":
      if (args.length === 0 || args[0] === "/")
        return [
          "bin",
          "etc",
          "home",
          "root",
          "tmp",
          "usr",
          "var",
          ...w.volumes.map((v) => v.mount_path.split("/")[1]!),
        ];
      break;
  }
  return [`cws-reference: ran '${argv.join(" ")}' in container ${w.name} (simulated, no output)`];
}
