/**
 * What the processes of one stack cost: polls /proc for processes whose environment names the
 * stack's temp dir, sorts them into classes by command line (the engine, the provider plugin),
 * and keeps per class the largest high-water mark of resident memory (VmHWM) and the CPU time
 * used (user + system). Linux only; reports zeros elsewhere.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SEC = 100;
/** Polls a process is classified on before it counts as not one of ours. */
const RECHECKS = 4;

export interface ProcessCost {
  peakRssBytes: number;
  cpuSeconds: number;
}

export class ProcessWatch {
  private readonly timer: NodeJS.Timeout;
  private readonly stackDir: string;
  private readonly classes: Record<string, RegExp>;
  /** pid → its class, once known. */
  private readonly seen = new Map<string, string>();
  /**
   * pid → polls that found it not (yet) one of ours. A process is looked at again for a few
   * polls: a plugin forked by a shell script shows the shell's command line until it execs.
   */
  private readonly misses = new Map<string, number>();
  private readonly cpuTicks = new Map<string, number>();
  private readonly costs: Record<string, ProcessCost> = {};

  constructor(stackDir: string, classes: Record<string, RegExp>, everyMs = 250) {
    this.stackDir = stackDir;
    this.classes = classes;
    for (const c of Object.keys(classes)) this.costs[c] = { peakRssBytes: 0, cpuSeconds: 0 };
    this.timer = setInterval(() => this.poll(), everyMs);
    this.timer.unref();
  }

  private classify(pid: string): string | null {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      const cls = Object.keys(this.classes).find((c) => this.classes[c]!.test(cmd));
      if (!cls) return null;
      return readFileSync(`/proc/${pid}/environ`, "latin1").includes(this.stackDir) ? cls : null;
    } catch {
      return null;
    }
  }

  poll(): void {
    let pids: string[];
    try {
      pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const pid of pids) {
      let cls = this.seen.get(pid);
      if (!cls) {
        const misses = this.misses.get(pid) ?? 0;
        if (misses >= RECHECKS) continue;
        cls = this.classify(pid) ?? undefined;
        if (!cls) {
          this.misses.set(pid, misses + 1);
          continue;
        }
        this.seen.set(pid, cls);
      }
      try {
        const cost = this.costs[cls]!;
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
        if (hwm) cost.peakRssBytes = Math.max(cost.peakRssBytes, Number(hwm[1]) * 1024);
        // utime and stime: fields 14 and 15 of /proc/PID/stat.
        const f = statFields(pid);
        if (!f) continue;
        const ticks = Number(f[11]) + Number(f[12]);
        cost.cpuSeconds += (ticks - (this.cpuTicks.get(pid) ?? 0)) / TICKS_PER_SEC;
        this.cpuTicks.set(pid, ticks);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  }

  /** Costs so far, per class. */
  take(): Record<string, ProcessCost> {
    this.poll();
    return structuredClone(this.costs);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Fields after the parenthesised command name of /proc/PID/stat (field 3 is index 0). */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by a process and every process below it (user + system, and those of
 * the children each has waited for): a process that ends moves its time into its parent's
 * children's time, so the sum holds across the ends. A process whose parent ended first leaves
 * the tree with its time (re-parented). Linux only; 0 elsewhere.
 */
export function treeCpuSeconds(root: number): number {
  const parent = new Map<string, string>();
  const ticks = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    const f = statFields(pid);
    if (!f) continue;
    parent.set(pid, f[1]!);
    // utime, stime, cutime, cstime: fields 14 to 17.
    ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  const inTree = (pid: string): boolean => {
    for (let p: string | undefined = pid, hops = 0; p && p !== "0" && hops < 64; p = parent.get(p), hops++)
      if (p === String(root)) return true;
    return false;
  };
  let sum = 0;
  for (const [pid, t] of ticks) if (inTree(pid)) sum += t;
  return sum / TICKS_PER_SEC;
}
