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
        // Fields 14 and 15 of /proc/PID/stat (after the parenthesised command name).
        const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
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
