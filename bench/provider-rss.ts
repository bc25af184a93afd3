/**
 * Peak resident memory of the engine's provider processes for one stack: polls /proc for
 * processes whose command line matches `cmdline` and whose environment names the stack's temp
 * dir, and keeps the largest high-water mark (VmHWM) seen. Linux only; reports 0 elsewhere.
 */
import { readdirSync, readFileSync } from "node:fs";

export class ProcessPeak {
  max = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly stackDir: string;
  private readonly cmdline: RegExp;

  constructor(stackDir: string, cmdline: RegExp, everyMs = 200) {
    this.stackDir = stackDir;
    this.cmdline = cmdline;
    this.timer = setInterval(() => this.poll(), everyMs);
    this.timer.unref();
  }

  private poll(): void {
    let pids: string[];
    try {
      pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        if (!this.cmdline.test(readFileSync(`/proc/${pid}/cmdline`, "latin1"))) continue;
        if (!readFileSync(`/proc/${pid}/environ`, "latin1").includes(this.stackDir)) continue;
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
        if (hwm) this.max = Math.max(this.max, Number(hwm[1]) * 1024);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
