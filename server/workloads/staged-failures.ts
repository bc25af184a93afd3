/**
 * Staged failures (provisioning rules with `failure`, admin API): a deploy that fails the way users
 * meet it, with the events and the log lines the service records for it, spread over the rule's
 * delay:
 * - image_pull: the image cannot be pulled (pull back-off); no container output;
 * - exit: the container starts, prints its lines and exits non-zero;
 * - crash_loop: the container exits and is restarted `restarts` times; the current container waits
 *   in back-off (no output), the previous one has the lines;
 * - vm_boot: a VM that never boots; the lines are its serial console;
 * - never_ready: the container runs but its readiness probe keeps failing; the workload stays
 *   provisioning until the caller's deadline passes.
 * `message` and `logs` may name what the service knows: `{env:NAME}` (an env value),
 * `{registry_password}`, `{vm_password}`: a service that echoes them is what redaction is for.
 * The log lines are kept in memory, per workload and deployment, like the rules.
 */
import type { ProvisioningRuleCreate } from "../../api/index.ts";
import type { WorkloadRecord } from "../store/records.ts";

/** One line of a container's (a VM's) output; `qemu` lines are the VM's qemu log. */
export interface StagedLine {
  at: string;
  text: string;
  qemu?: boolean;
}

/** What a step does: an event, lines printed by the current container, a new container, the end. */
interface Step {
  event?: { event_type: string; reason: string; message: string; exit_code?: number };
  lines?: string[];
  qemu?: string[];
  newContainer?: boolean;
  /** The final status change to error. */
  fail?: { reason: string; message: string; exit_code?: number };
}

/** What the lifecycle lets the staging do to a workload. */
export interface StagingHost {
  now(): string;
  /** The workload as stored now, when it is still provisioning the deployment `deployId`. */
  current(uid: string, deployId: number): WorkloadRecord | undefined;
  event(w: WorkloadRecord, e: NonNullable<Step["event"]>): void;
  fail(w: WorkloadRecord, f: NonNullable<Step["fail"]>): void;
  /** A line was printed (log followers get it). */
  printed(w: WorkloadRecord, line: StagedLine): void;
}

const MAX_LINES = 200;

/** `{env:NAME}`, `{registry_password}`, `{vm_password}` replaced with what the workload has. */
export function expand(text: string, w: WorkloadRecord): string {
  return text.replace(
    /\{(env:([^}]+)|registry_password|vm_password)\}/g,
    (all, key: string, env?: string) => {
      if (env !== undefined) return w.envs.find((e) => e.name === env)?.value ?? "";
      if (key === "registry_password") return w.registry_auth?.password ?? "";
      if (key === "vm_password") return w.vm_config?.password ?? "";
      return all;
    },
  );
}

function startCommand(w: WorkloadRecord): string {
  const cmd = [...w.commands, ...w.args].join(" ");
  return `starting ${w.image}${cmd ? ` with '${cmd}'` : ""}`;
}

/** The steps of a rule's failure for `w`, the message and lines of the rule expanded. */
function script(rule: ProvisioningRuleCreate, w: WorkloadRecord): Step[] {
  const lines = rule.logs?.map((l) => expand(l, w));
  const msg = rule.message === undefined ? undefined : expand(rule.message, w);
  const code = rule.exit_code ?? 1;
  const pulled: Step[] = [
    { event: { event_type: "NORMAL", reason: "Pulling", message: `pulling image "${w.image}"` } },
    { event: { event_type: "NORMAL", reason: "Pulled", message: `pulled image "${w.image}"` } },
  ];
  const started = (n: number): Step => ({
    newContainer: true,
    event: {
      event_type: "NORMAL",
      reason: "Started",
      message: `started container ${w.name}${n ? ` (restart ${n})` : ""}`,
    },
  });
  const exitLines = lines ?? [
    startCommand(w),
    `loading configuration from the environment (${w.envs.length} variables)`,
    "error: required environment variable DATABASE_URL is not set",
  ];
  switch (rule.failure) {
    case "image_pull": {
      const why = msg ?? `manifest for ${w.image} not found: manifest unknown`;
      return [
        pulled[0]!,
        {
          event: {
            event_type: "WARNING",
            reason: "Failed",
            message: `failed to pull image "${w.image}": ${why}`,
          },
        },
        {
          event: { event_type: "WARNING", reason: "BackOff", message: `back-off pulling image "${w.image}"` },
        },
        { fail: { reason: "ImagePullBackOff", message: `image ${w.image} could not be pulled: ${why}` } },
      ];
    }
    case "exit":
      return [
        ...pulled,
        { ...started(0), lines: exitLines },
        {
          event: {
            event_type: "WARNING",
            reason: "Error",
            message: msg ?? `container ${w.name} exited with code ${code}`,
            exit_code: code,
          },
        },
        {
          fail: {
            reason: "ContainerFailed",
            message: `container ${w.name} exited with code ${code}`,
            exit_code: code,
          },
        },
      ];
    case "crash_loop": {
      const restarts = rule.restarts ?? 3;
      const steps: Step[] = [...pulled];
      for (let i = 0; i <= restarts; i++) {
        steps.push({ ...started(i), lines: exitLines });
        steps.push({
          event: {
            event_type: "WARNING",
            reason: "BackOff",
            message: msg ?? `back-off restarting failed container ${w.name}: exited with code ${code}`,
            exit_code: code,
          },
        });
      }
      // The container that would start next waits in back-off: it has printed nothing.
      steps.push({ newContainer: true });
      steps.push({
        fail: {
          reason: "CrashLoopBackOff",
          message: `container ${w.name} restarted ${restarts} times and keeps exiting (code ${code})`,
          exit_code: code,
        },
      });
      return steps;
    }
    case "vm_boot":
      return [
        {
          event: {
            event_type: "NORMAL",
            reason: "Scheduled",
            message: `virtual machine ${w.name} placed on a host`,
          },
        },
        {
          newContainer: true,
          event: { event_type: "NORMAL", reason: "Booting", message: `booting ${w.image}` },
          qemu: [`qemu-system-x86_64: starting ${w.name} (image ${w.image})`],
          lines: lines ?? [
            "SeaBIOS (version 1.16.3)",
            "Booting from Hard Disk...",
            '[    1.204311] VFS: Cannot open root device "vda1" or unknown-block(0,0): error -6',
            "[    1.204902] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
          ],
        },
        {
          event: {
            event_type: "WARNING",
            reason: "BootTimeout",
            message: msg ?? "no heartbeat from the guest agent: the virtual machine did not boot",
          },
          qemu: ["qemu-system-x86_64: guest agent did not answer"],
        },
        { fail: { reason: "BootFailed", message: `virtual machine ${w.name} did not boot` } },
      ];
    case "never_ready":
      return [
        ...pulled,
        {
          ...started(0),
          lines: lines ?? [
            startCommand(w),
            "waiting for database at db:5432 (attempt 1)",
            "waiting for database at db:5432 (attempt 2)",
          ],
        },
        {
          event: {
            event_type: "WARNING",
            reason: "Unhealthy",
            message: msg ?? "readiness probe failed: connection refused",
          },
        },
      ];
    default:
      return [];
  }
}

/** The staged failures in progress and the lines they printed, per workload. */
export class StagedFailures {
  private readonly host: StagingHost;
  private readonly timers = new Map<string, NodeJS.Timeout[]>();
  /** uid → the deployment the lines are of, and its containers' lines (oldest container first). */
  private readonly output = new Map<string, { deployId: number; containers: StagedLine[][] }>();

  constructor(host: StagingHost) {
    this.host = host;
  }

  /** Runs the rule's failure for the deployment `w` just started, its steps spread over `delayMs`. */
  start(w: WorkloadRecord, rule: ProvisioningRuleCreate, delayMs: number): void {
    this.stop(w.uid);
    const steps = script(rule, w);
    const deployId = w.deploy_id;
    this.output.set(w.uid, { deployId, containers: [] });
    const timers = steps.map((step, i) => {
      const t = setTimeout(
        () => this.run(w.uid, deployId, step),
        Math.round((delayMs * (i + 1)) / steps.length),
      );
      t.unref();
      return t;
    });
    this.timers.set(w.uid, timers);
  }

  private run(uid: string, deployId: number, step: Step): void {
    const w = this.host.current(uid, deployId);
    const out = this.output.get(uid);
    if (!w || !out || out.deployId !== deployId) return;
    if (step.newContainer) out.containers.push([]);
    const container = out.containers[out.containers.length - 1];
    const print = (text: string, qemu?: boolean) => {
      if (!container || container.length >= MAX_LINES) return;
      const line: StagedLine = { at: this.host.now(), text, ...(qemu ? { qemu } : {}) };
      container.push(line);
      this.host.printed(w, line);
    };
    for (const text of step.lines ?? []) print(text);
    for (const text of step.qemu ?? []) print(text, true);
    if (step.event) this.host.event(w, step.event);
    if (step.fail) this.host.fail(w, step.fail);
  }

  /**
   * The lines of `w`'s current deployment when it is a staged one: its current container's, or
   * with `previous` the one before it (undefined when there is none: the previous deployment's).
   */
  lines(w: WorkloadRecord, previous: boolean): StagedLine[] | undefined {
    const out = this.output.get(w.uid);
    if (!out || out.deployId !== w.deploy_id) return undefined;
    const n = out.containers.length;
    if (!previous) return out.containers[n - 1] ?? [];
    return n >= 2 ? out.containers[n - 2] : undefined;
  }

  /** Stops the staging of `uid` (a new deploy, suspend, delete); the lines stay until the next deploy. */
  stop(uid: string): void {
    for (const t of this.timers.get(uid) ?? []) clearTimeout(t);
    this.timers.delete(uid);
  }

  /** Drops every staging and its lines (admin reset, close). */
  reset(): void {
    for (const uid of [...this.timers.keys()]) this.stop(uid);
    this.output.clear();
  }
}
