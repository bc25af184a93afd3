import type { LogsQuery, WorkloadEvent } from "../../api/index.ts";
import { ApiError } from "../http/errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord } from "../store/records.ts";
import type { Store, StoredEvent } from "../store/store.ts";
import type { StagedLine } from "./staged-failures.ts";

/**
 * Workload logs. Container output is simulated from the status changes of each deployment
 * (instance = deploy_id): a line per change, plus what a started container or VM would print.
 */
export class WorkloadLogs {
  private readonly store: Store;
  private readonly lc: Lifecycle;

  constructor(store: Store, lc: Lifecycle) {
    this.store = store;
    this.lc = lc;
  }

  /** The query's rules that depend on the workload: `type` (serial or qemu) is for VMs only. */
  check(w: WorkloadRecord, q: LogsQuery): void {
    if (q.type !== undefined && w.type !== "VM")
      throw new ApiError(
        "INVALID_QUERY",
        `type (serial or qemu) is only supported for VM workloads; ${w.uid} is ${w.type}`,
      );
  }

  /** The lines logged so far by the current deployment (or, with previous, the one before). */
  lines(w: WorkloadRecord, q: LogsQuery): string[] {
    const staged = this.lc.staging.lines(w, q.previous === "true");
    if (staged) return tailOf(stagedText(w, staged, q), q.tail);
    const events = this.store
      .events<WorkloadEvent>("workload", w.uid)
      .filter((e) => Number(e.meta.deploy_id) > 0 && e.record.event_type === "STATUS_CHANGE");
    let instance = w.deploy_id;
    if (q.previous === "true") {
      const earlier = events.map((e) => Number(e.meta.deploy_id)).filter((d) => d < w.deploy_id);
      instance = earlier.length ? Math.max(...earlier) : -1;
    }
    const since = q.since ? Date.parse(q.since) : undefined;
    const lines = events
      .filter(
        (e) =>
          Number(e.meta.deploy_id) === instance &&
          (since === undefined || Date.parse(e.record.created_at) >= since),
      )
      .flatMap((e) => logLines(w, e, q.type));
    return tailOf(lines, q.tail);
  }

  /** Whether the request goes on streaming new lines: follow of the current deployment of a live workload. */
  follows(w: WorkloadRecord, q: LogsQuery): boolean {
    return q.follow === "true" && q.previous !== "true" && w.status !== "deleted";
  }

  /**
   * Calls onLine with each line w logs from now on, and onEnd once it is deleted. Returns the
   * function that stops following.
   */
  follow(w: WorkloadRecord, q: LogsQuery, onLine: (line: string) => void, onEnd: () => void): () => void {
    const onEvent = (x: WorkloadRecord, e: StoredEvent<WorkloadEvent>) => {
      if (x.uid !== w.uid || e.record.event_type !== "STATUS_CHANGE") return;
      for (const line of logLines(x, e, q.type)) onLine(line);
      if (x.status === "deleted") onEnd();
    };
    const onLog = (x: WorkloadRecord, line: StagedLine) => {
      if (x.uid === w.uid) for (const text of stagedText(x, [line], q)) onLine(text);
    };
    this.lc.on("workload-event", onEvent);
    this.lc.on("workload-log", onLog);
    return () => {
      this.lc.off("workload-event", onEvent);
      this.lc.off("workload-log", onLog);
    };
  }
}

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

function tailOf(lines: string[], tail: number | undefined): string[] {
  if (tail === undefined) return lines;
  return tail === 0 ? [] : lines.slice(-tail);
}

/** A staged failure's lines as the log route gives them: a VM's of the log type asked for (serial by default). */
function stagedText(w: WorkloadRecord, lines: StagedLine[], q: LogsQuery): string[] {
  const since = q.since ? Date.parse(q.since) : undefined;
  const qemu = w.type === "VM" && q.type === "qemu";
  const prefix = w.type === "VM" ? `[${qemu ? "qemu" : "serial"}] ` : "";
  return lines
    .filter(
      (l) =>
        (w.type === "VM" ? Boolean(l.qemu) === qemu : !l.qemu) &&
        (since === undefined || Date.parse(l.at) >= since),
    )
    .map((l) => `${l.at} ${prefix}${l.text}`);
}
