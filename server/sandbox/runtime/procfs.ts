// Host-side helpers over /proc: find the processes of a sandbox (by PID namespace),
// stop and continue them (the freeze mechanism), and kill them.

import * as fs from "node:fs";

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
}

export function readStat(pid: number): ProcStat | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pid, state: rest[0], ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57) pids.push(Number(name));
  }
  return pids;
}

/** The PID namespace of a process, as readlink(/proc/PID/ns/pid) gives it ("pid:[4026532...]"). */
export function pidNamespace(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** Host PIDs of every process in the given PID namespace. */
export function pidsInNamespace(ns: string): number[] {
  return allPids().filter((pid) => pidNamespace(pid) === ns);
}

export function childrenOf(ppid: number): number[] {
  return allPids().filter((pid) => readStat(pid)?.ppid === ppid);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // exited meanwhile
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parents before children (by depth in the process tree). */
function byDepth(pids: number[]): number[] {
  const stats = new Map(pids.map((p) => [p, readStat(p)]));
  const depth = (p: number): number => {
    let d = 0;
    for (let cur = stats.get(p); cur && stats.has(cur.ppid) && d < 1000; cur = stats.get(cur.ppid)) d++;
    return d;
  };
  return [...pids].sort((a, b) => depth(a) - depth(b));
}

export interface FrozenSet {
  /** Processes that were already stopped before the freeze (left stopped on thaw). */
  preStopped: Set<number>;
}

const STOPPED = new Set(["T", "t", "Z", "X"]);

/**
 * Stops every process of the namespace with SIGSTOP, parents first (so that a shell
 * cannot observe its job being stopped), re-scanning until no process is left running
 * (processes forked during the freeze are caught by the next scan).
 */
export async function stopNamespace(ns: string): Promise<FrozenSet> {
  const signalled = new Set<number>();
  const preStopped = new Set<number>();
  for (let round = 0; round < 500; round++) {
    const pids = byDepth(pidsInNamespace(ns));
    let pending = false;
    for (const pid of pids) {
      const st = readStat(pid);
      if (!st) continue;
      if (!signalled.has(pid)) {
        signalled.add(pid);
        if (round === 0 && st.state === "T") {
          preStopped.add(pid);
          continue;
        }
        signal(pid, "SIGSTOP");
        pending = true;
      } else if (!STOPPED.has(st.state)) {
        pending = true;
      }
    }
    if (!pending) return { preStopped };
    await sleep(round < 20 ? 1 : 10);
  }
  // Whatever was stopped goes on again: a sandbox left stopped would leave every call to its
  // agent waiting.
  continueNamespace(ns, { preStopped });
  throw new Error("could not stop every process of the sandbox");
}

/** Continues the processes stopped by stopNamespace, children first. */
export function continueNamespace(ns: string, frozen: FrozenSet): void {
  for (const pid of byDepth(pidsInNamespace(ns)).reverse()) {
    if (!frozen.preStopped.has(pid)) signal(pid, "SIGCONT");
  }
}

/**
 * SIGKILLs every process of the namespace until none is left alive. Zombies are dead
 * already; they vanish when their new parent (the host's init, for the namespace's own
 * init when bwrap exited first) reaps them. Returns the living processes still there at
 * the deadline.
 */
export async function killNamespace(ns: string, timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = livePidsInNamespace(ns);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    for (const pid of alive) signal(pid, "SIGKILL");
    await sleep(10);
  }
}

/** pidsInNamespace without zombies. */
export function livePidsInNamespace(ns: string): number[] {
  return pidsInNamespace(ns).filter((pid) => {
    const st = readStat(pid);
    return st !== undefined && st.state !== "Z" && st.state !== "X";
  });
}
