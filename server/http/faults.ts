/**
 * Fault injection (admin, `POST /admin/faults`): matching API requests fail before or after being
 * carried out, have their connection cut, or slow down; counted, or at random with a rate.
 * Regexes are compiled (and bounded in size) when the fault is created; matching never throws.
 */
import { faultPathRegex, type Fault, type FaultCreate } from "../../api/index.ts";
import { newUid } from "../common/util.ts";

interface Entry {
  fault: Fault;
  regex: RegExp;
}

export class Faults {
  private entries: Entry[] = [];
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  /** Adds a fault; `f` has passed FaultCreate, so its path compiles. */
  add(f: FaultCreate): Fault {
    const regex = faultPathRegex(f.path);
    if (typeof regex === "string") throw new TypeError(regex);
    const fault: Fault = {
      id: newUid("fault"),
      method: f.method?.toUpperCase(),
      path: f.path,
      remaining: f.count,
      rate: f.rate,
      when: f.when ?? "before",
      status: f.status,
      drop: f.drop,
      retry_after_sec: f.retry_after_sec,
      latency_ms: f.latency_ms,
      reason: f.reason,
      taken: 0,
    };
    this.entries.push({ fault, regex });
    return view(fault);
  }

  /** Takes one use of the first fault that matches the request and fires. */
  take(method: string, path: string): Fault | undefined {
    for (const e of this.entries) {
      const f = e.fault;
      if (f.method && f.method !== method) continue;
      if (!matches(e.regex, path)) continue;
      if (f.rate !== undefined && this.random() >= f.rate) continue;
      f.taken++;
      if (f.remaining !== undefined) {
        f.remaining--;
        if (f.remaining <= 0) this.entries = this.entries.filter((x) => x !== e);
      }
      return view(f);
    }
    return undefined;
  }

  list(): Fault[] {
    return this.entries.map((e) => view(e.fault));
  }

  clear(): void {
    this.entries = [];
  }

  /** The pending faults with their counts, for a snapshot (server/admin/state.ts). */
  save(): Fault[] {
    return this.entries.map((e) => ({ ...e.fault }));
  }

  /** Replaces the pending faults with those `save` gave. */
  restore(saved: readonly Fault[]): void {
    this.entries = saved.map((f) => {
      const regex = faultPathRegex(f.path);
      if (typeof regex === "string") throw new TypeError(regex);
      return { fault: { ...f }, regex };
    });
  }
}

function matches(regex: RegExp, path: string): boolean {
  try {
    regex.lastIndex = 0;
    return regex.test(path);
  } catch {
    return false;
  }
}

function view(f: Fault): Fault {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Fault;
}
