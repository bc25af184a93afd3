/**
 * The sandboxes that run: two independent pools (X-Deployment-Type master and shadow), each a
 * SandboxRuntime under one root directory, and the live sandbox of each deployed SANDBOX
 * workload: starting one (fresh, from a published snapshot or as a copy of a parent), tearing it
 * down, keeping its SSH keys in step with the workload. No workload states change here; the
 * sandbox service (service.ts) does that.
 */
import { randomBytes } from "node:crypto";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { SandboxError, SandboxRuntime } from "./runtime/index.ts";

/** The two independent sandbox pools (X-Deployment-Type master and shadow). */
export type Pool = "master" | "shadow";
export const POOLS: readonly Pool[] = ["master", "shadow"];

/** Live terminals per sandbox (429 WORKLOAD_SANDBOX_SESSION_LIMIT beyond). */
export const MAX_TERMINALS = 8;

/** A deployed sandbox (one per SANDBOX workload that is provisioning, running or frozen). */
export interface LiveSandbox {
  uid: string;
  pool: Pool;
  /** Id of the sandbox in its pool's runtime. */
  id: string;
  desktop: boolean;
  /** Resolves once the sandbox runs; rejects if it could not start. */
  starting: Promise<void>;
  /** Date.now() at deploy: the TTL counts from here. */
  deployedAt: number;
  /** Activity the runtime does not see (deploy, thaw, desktop traffic). */
  activity: number;
  /** Requests in progress (exec, files): a sandbox is not idle while one runs. */
  busy: number;
  /** SSH key UID -> public key installed in the guest. */
  keys: Map<string, string>;
  keyLock: Promise<void>;
}

/** A workload's live sandbox and the runtime it runs in: what an operation acts on. */
export interface Target {
  w: WorkloadRecord;
  live: LiveSandbox;
  rt: SandboxRuntime;
}

/** What a new sandbox starts from: its template's files (a snapshot for USER templates) or a running parent's. */
export interface StartFrom {
  desktop: boolean;
  snapshotDir?: string;
  parentUid?: string;
}

export class SandboxPools {
  readonly rootDir: string;
  readonly runtimes: Record<Pool, SandboxRuntime>;
  readonly live = new Map<string, LiveSandbox>();
  private readonly ownsRoot: boolean;
  private readonly store: Store;

  /**
   * `busyWaitMs`: how long an operation waits for a sandbox another operation holds (the
   * server's `timeouts.sandboxWaitMs`), see SandboxRuntimeOptions.
   */
  constructor(opts: { sandboxRoot: string | undefined; store: Store; busyWaitMs?: number }) {
    this.store = opts.store;
    this.ownsRoot = !opts.sandboxRoot;
    // Without sandboxRoot: a private temporary directory, created by the first sandbox (so that a
    // server that runs none leaves nothing behind) and removed on close.
    this.rootDir = opts.sandboxRoot
      ? path.resolve(opts.sandboxRoot)
      : path.join(os.tmpdir(), `cws-sandboxes-${process.pid}-${randomBytes(8).toString("hex")}`);
    const runtime = (pool: Pool) =>
      new SandboxRuntime({
        rootDir: path.join(this.rootDir, pool),
        maxTerminals: MAX_TERMINALS,
        busyWaitMs: opts.busyWaitMs,
      });
    this.runtimes = { master: runtime("master"), shadow: runtime("shadow") };
  }

  poolOf(deploymentType: string | undefined): Pool {
    return deploymentType === "shadow" ? "shadow" : "master";
  }

  /** Creates the sandbox root (private to the server's user) if needed. */
  async ensureRoot(): Promise<void> {
    await fsp.mkdir(this.rootDir, { recursive: true, mode: 0o700 });
  }

  /** State of a live sandbox in its runtime (undefined once the runtime no longer has it). */
  runtimeState(live: LiveSandbox): string | undefined {
    try {
      return this.runtimes[live.pool].state(live.id);
    } catch {
      return undefined;
    }
  }

  /**
   * Starts w's sandbox in `pool` (replacing one it had) and installs its SSH keys; resolves when
   * it runs. A delete meanwhile finds it in `live`, waits for the start and destroys it.
   */
  async start(w: WorkloadRecord, pool: Pool, from: StartFrom): Promise<void> {
    const rt = this.runtimes[pool];
    const old = this.live.get(w.uid);
    const now = Date.now();
    const live: LiveSandbox = {
      uid: w.uid,
      pool,
      id: w.uid,
      desktop: from.desktop,
      starting: Promise.resolve(),
      deployedAt: now,
      activity: now,
      busy: 0,
      keys: new Map(),
      keyLock: Promise.resolve(),
    };
    // Registered at once, so that a delete arriving meanwhile waits for the start and destroys it.
    this.live.set(w.uid, live);
    live.starting = (async () => {
      await this.ensureRoot();
      if (old) await this.teardown(old);
      // Files left by an earlier life of this workload (e.g. a server killed without cleanup).
      await rt.destroy(live.id).catch(() => {});
      if (this.live.get(w.uid) !== live) throw new Error("deploy superseded");
      if (from.parentUid) {
        const parent = this.live.get(from.parentUid);
        if (!parent || parent.pool !== pool)
          throw new Error(`fork failed: parent sandbox ${from.parentUid} is no longer deployed`);
        await rt.fork(parent.id, live.id, { hostname: w.name, desktop: from.desktop });
      } else {
        await rt.start(live.id, { hostname: w.name, desktop: from.desktop, fromSnapshot: from.snapshotDir });
      }
    })();
    live.starting.catch(() => {});
    try {
      await live.starting;
      await this.syncKeys(w, live);
    } catch (e) {
      if (this.live.get(w.uid) === live) {
        this.live.delete(w.uid);
        await rt.destroy(live.id).catch(() => {});
      }
      throw new Error(`sandbox failed to start: ${(e as Error).message}`, { cause: e });
    }
    live.activity = Date.now();
  }

  /** Destroys a live sandbox (once its start settled) and forgets it. */
  async teardown(live: LiveSandbox): Promise<void> {
    if (this.live.get(live.uid) === live) this.live.delete(live.uid);
    await live.starting.catch(() => {});
    try {
      await this.runtimes[live.pool].destroy(live.id);
    } catch (e) {
      if (!(e instanceof SandboxError && e.code === "NOT_FOUND")) throw e;
    }
  }

  /** Makes the guest's authorized_keys hold exactly the workload's SSH keys. */
  syncKeys(w: WorkloadRecord, live: LiveSandbox): Promise<void> {
    const run = async () => {
      const rt = this.runtimes[live.pool];
      const want = new Map<string, string>();
      for (const uid of w.ssh_keys) {
        const key = live.keys.get(uid) ?? this.store.sshKeys.get(uid)?.public_key_raw;
        if (key) want.set(uid, key);
      }
      for (const [uid, key] of want) {
        if (live.keys.has(uid)) continue;
        await rt.installSshKey(live.id, key);
        live.keys.set(uid, key);
      }
      for (const [uid, key] of [...live.keys]) {
        if (want.has(uid)) continue;
        if (![...want.values()].includes(key)) await rt.removeSshKey(live.id, key);
        live.keys.delete(uid);
      }
    };
    const p = live.keyLock.then(run, run);
    live.keyLock = p.catch(() => {});
    return p;
  }

  /** Runs an operation on the sandbox; it counts as activity for the idle timeout while it runs. */
  async busy<T>(t: Target, fn: () => Promise<T>): Promise<T> {
    t.live.busy++;
    try {
      return await fn();
    } finally {
      t.live.busy--;
      t.live.activity = Date.now();
    }
  }

  /** Destroys every live sandbox. */
  async destroyAll(): Promise<void> {
    const all = [...this.live.values()];
    await Promise.all(all.map((l) => this.teardown(l).catch(() => {})));
    this.live.clear();
  }

  /** Shuts both runtimes down and removes the root directory when it is a temporary one. */
  async shutdown(): Promise<void> {
    await Promise.all(POOLS.map((p) => this.runtimes[p].shutdown()));
    if (this.ownsRoot) await fsp.rm(this.rootDir, { recursive: true, force: true });
  }
}
