/**
 * The calls a front end has running against the service. Each runs with a Context of its own
 * (its abort signal and, when the user set one, its timeout); `cancel` aborts them all: the
 * engine's Cancel, OpenTofu's StopProvider.
 */
import type { Context } from "./types.ts";

export class Operations {
  readonly #running = new Set<AbortController>();

  /** Runs `work` with the client and log of `base`, `timeoutMs` (none when 0 or unset) and a signal `cancel` aborts. */
  async run<T>(
    base: Pick<Context, "client" | "log">,
    timeoutMs: number | undefined,
    work: (ctx: Context) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    this.#running.add(controller);
    try {
      return await work({ ...base, signal: controller.signal, ...(timeoutMs ? { timeoutMs } : {}) });
    } finally {
      this.#running.delete(controller);
    }
  }

  cancel(): void {
    for (const c of this.#running) c.abort(new Error("the operation was cancelled"));
  }
}
