/** `client.workloads`: every route of spec section 4.1 (all workload types, sandboxes included). */
import { WORKLOADS } from "../api/endpoints/index.ts";
import type {
  AttachVolumeBody,
  AttachedSshKey,
  AttachedVolume,
  BmImage,
  VerifyBody,
  VerifyResult,
  VmImage,
  Workload,
  WorkloadCreate,
  WorkloadEvent,
  WorkloadListQuery,
  WorkloadOperation,
  WorkloadPatch,
  WorkloadState,
  WorkloadStatus,
} from "../api/index.ts";
import { diagnose, type DiagnosisSource } from "./diagnosis.ts";
import { printable, redact } from "./diagnosis-text.ts";
import { CwsWaitError, CwsWorkloadFailedError } from "./errors.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { TrackedResourceClient, type EventsQuery } from "./resource-client.ts";
import { ProgressWatch, type WaitProgress } from "./wait-progress.ts";
import type { WaitOptions } from "./waiters.ts";

export type { EventsQuery, WaitProgress };

export interface WorkloadWaitOptions extends WaitOptions {
  /**
   * Values the service's texts must never show (passwords, env values marked secret): redacted as
   * `[secret]` in the progress and the diagnosis, like the client's own token.
   */
  secrets?: Iterable<string>;
  /**
   * Called with the wait's progress when it changes: the status, the replicas and the newest
   * event (one events request beside each poll, client/wait-progress.ts).
   */
  onProgress?: (p: WaitProgress) => void;
  /**
   * When the wait fails (error, deleted, the deadline), gather the last events and log lines
   * (about 2 s at most) onto the error's `diagnosis` and message. Default true.
   */
  diagnose?: boolean;
}

export interface LogsOptions {
  /** Only lines at or after this time (RFC 3339 string or Date). */
  since?: string | Date;
  /** Only the last `tail` lines. */
  tail?: number;
  /** Logs of the previous container instance. */
  previous?: boolean;
  /** VM only: serial console or qemu log. */
  type?: "serial" | "qemu";
}

function logsQuery(q: LogsOptions, follow: boolean) {
  return {
    since: q.since instanceof Date ? q.since.toISOString() : q.since,
    tail: q.tail,
    previous: q.previous,
    type: q.type,
    follow: follow ? true : undefined,
  };
}

export class Workloads extends TrackedResourceClient<
  Workload,
  WorkloadListQuery,
  WorkloadPatch,
  WorkloadState,
  WorkloadEvent,
  WorkloadOperation
> {
  constructor(transport: Transport) {
    super(transport, WORKLOADS);
  }

  vmImages(opts?: RequestOptions): Promise<VmImage[]> {
    return this.t.json({ endpoint: WORKLOADS.vmImages }, opts);
  }

  bmImages(opts?: RequestOptions): Promise<BmImage[]> {
    return this.t.json({ endpoint: WORKLOADS.bmImages }, opts);
  }

  /** Checks a workload against an image digest. A pure check: retried like a GET. */
  verify(body: VerifyBody, opts?: RequestOptions): Promise<VerifyResult> {
    return this.t.json({ endpoint: WORKLOADS.verify, body, idempotent: true }, opts);
  }

  /** Registers a workload (state registered; nothing is deployed). Not retried after an ambiguous failure. */
  create(body: WorkloadCreate, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.t.json({ endpoint: WORKLOADS.create, body }, opts);
  }

  /** Sets the given fields. A deployed non-sandbox workload is redeployed by the service. */
  override update(uid: string, patch: WorkloadPatch, opts?: RequestOptions): Promise<Workload> {
    return super.update(uid, patch, opts);
  }

  /** Soft-deletes the workload (tears down its runtime). */
  override delete(uid: string, opts?: RequestOptions): Promise<void> {
    return super.delete(uid, opts);
  }

  /** Starts provisioning; wait with `waitForStatus(uid, "running")`. */
  deploy(uid: string, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.t.json({ endpoint: WORKLOADS.deploy, params: { uid } }, opts);
  }

  /** RENTAL (and sandboxes): removes the runtime, keeps the configuration. */
  suspend(uid: string, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.t.json({ endpoint: WORKLOADS.suspend, params: { uid } }, opts);
  }

  /** Reboots a VM (not for BM). */
  reboot(uid: string, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.t.json({ endpoint: WORKLOADS.reboot, params: { uid } }, opts);
  }

  /** The log text as it is now. */
  logs(uid: string, query: LogsOptions = {}, opts?: RequestOptions): Promise<string> {
    return this.t.text({ endpoint: WORKLOADS.logs, params: { uid }, query: logsQuery(query, false) }, opts);
  }

  /**
   * Follows the log: yields text chunks as the service sends them, until it ends the stream, the
   * loop breaks or `opts.signal` aborts (which closes the connection). `timeoutMs` bounds only the
   * wait for the response headers.
   */
  followLogs(
    uid: string,
    query: LogsOptions = {},
    opts?: RequestOptions,
  ): AsyncGenerator<string, void, undefined> {
    return this.t.stream({ endpoint: WORKLOADS.logs, params: { uid }, query: logsQuery(query, true) }, opts);
  }

  /**
   * RENTAL only: runs `argv` in the container and yields its output as it arrives. For sandboxes
   * use `client.sandboxes.exec`. Not retried after an ambiguous failure (the command may have run).
   */
  exec(uid: string, argv: string[], opts?: RequestOptions): AsyncGenerator<string, void, undefined> {
    if (!Array.isArray(argv) || argv.length === 0) throw new TypeError("exec needs at least one argument");
    return this.t.stream({ endpoint: WORKLOADS.exec, params: { uid }, query: { command: argv } }, opts);
  }

  /** RENTAL only: mounts a volume at `mount_path`. */
  attachVolume(
    uid: string,
    volumeUid: string,
    body: AttachVolumeBody,
    opts?: RequestOptions,
  ): Promise<AttachedVolume> {
    return this.t.json({ endpoint: WORKLOADS.attachVolume, params: { uid, volume: volumeUid }, body }, opts);
  }

  detachVolume(uid: string, volumeUid: string, opts?: RequestOptions): Promise<void> {
    return this.t.empty({ endpoint: WORKLOADS.detachVolume, params: { uid, volume: volumeUid } }, opts);
  }

  /** Attaches an SSH key; a deployed sandbox also gets it installed in the guest. */
  attachSshKey(uid: string, keyUid: string, opts?: RequestOptions): Promise<AttachedSshKey> {
    return this.t.json({ endpoint: WORKLOADS.attachSshKey, params: { uid, key: keyUid } }, opts);
  }

  detachSshKey(uid: string, keyUid: string, opts?: RequestOptions): Promise<void> {
    return this.t.empty({ endpoint: WORKLOADS.detachSshKey, params: { uid, key: keyUid } }, opts);
  }

  /**
   * Polls the workload's state until its status is one of `target` and returns that state.
   * Fails fast with `CwsWorkloadFailedError` when the status becomes `error` or `deleted` (unless
   * that is a target), rethrows `CwsNotFoundError` when the workload disappears, and throws
   * `CwsWaitTimeoutError` (with the last status) at the deadline.
   */
  async waitForStatus(
    uid: string,
    target: WorkloadStatus | WorkloadStatus[],
    opts: WorkloadWaitOptions,
  ): Promise<WorkloadState> {
    const secrets = [...(opts.secrets ?? [])];
    const src = this.#diagnosisSource();
    let last: WorkloadState | undefined;
    const check = (s: WorkloadState, targets: string[]) => {
      if (s.status === "error" || s.status === "deleted")
        throw new CwsWorkloadFailedError({
          uid,
          target: targets,
          lastStatus: s.status,
          serviceMessage: printable(src.scrub(redact(s.message, secrets))),
        });
    };
    const watch = opts.onProgress && new ProgressWatch(src, uid, secrets, opts.onProgress);
    const read = async (o: RequestOptions) =>
      (last = await (watch ? watch.poll(() => this.state(uid, o), o) : this.state(uid, o)));
    try {
      return await this.waitFor("workload", uid, target, opts, check, read);
    } catch (e) {
      if (!(e instanceof CwsWaitError) || opts.diagnose === false || opts.signal?.aborted) throw e;
      throw e.attachDiagnosis(await diagnose(src, uid, { secrets, state: last, signal: opts.signal }));
    }
  }

  /** What a diagnosis reads through (diagnosis.ts). */
  #diagnosisSource(): DiagnosisSource {
    return {
      state: (uid, o) => this.state(uid, o),
      events: (uid, q, o) => this.events(uid, q, o),
      logs: (uid, q, o) => this.logs(uid, q, o),
      where: { baseUrl: this.t.baseUrl, org: this.t.org },
      scrub: (text) => this.t.scrub(text),
    };
  }
}
