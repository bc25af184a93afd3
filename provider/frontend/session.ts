/**
 * A front end's hold on the service, whatever its protocol: the settings it was configured with
 * (or why it was not), the client made from them when a call first needs one (kept while the
 * settings stay the same), and the calls running against it. Each call runs with a Context of its
 * own (the client, its log line, its abort signal and, when the user set one, its timeout);
 * `cancel` aborts them all: the engine's Cancel, OpenTofu's StopProvider.
 */
import type { CwsClient } from "../../client/index.ts";
import type { Context } from "../core/types.ts";
import type { Settings } from "./settings.ts";

/** What a call that needs the service says before the front end was configured. */
export const NOT_CONFIGURED = "the cws provider was not configured";

export class Session {
  /** The client class, handed over so that a front end may load it only when a call needs it. */
  readonly #clientClass: () => typeof CwsClient;
  #settings: Settings | Error = new Error(NOT_CONFIGURED);
  #client: CwsClient | undefined;
  readonly #running = new Set<AbortController>();

  constructor(clientClass: () => typeof CwsClient) {
    this.#clientClass = clientClass;
  }

  /** The settings Configure gave, or why they are wrong: said by the first call that needs the service. */
  configure(settings: Settings | Error): void {
    const same = JSON.stringify(settings) === JSON.stringify(this.#settings);
    if (settings instanceof Error || !same) this.#client = undefined;
    this.#settings = settings;
  }

  /**
   * The client of the configured settings; throws what is wrong with them. Its requests pass the
   * process's rate gate for the service and org (client/rate-gate.ts), shared by every client
   * and every call of the process, capped at `maxRequestsPerSecond` when it is set.
   */
  client(): CwsClient {
    if (this.#settings instanceof Error) throw this.#settings;
    const { baseUrl, org, token, maxRequestsPerSecond } = this.#settings;
    this.#client ??= new (this.#clientClass())({
      baseUrl,
      org,
      token,
      rateGate: "shared",
      maxRequestsPerSecond,
    });
    return this.#client;
  }

  /** Runs `work` with the client, `log`, `timeoutMs` (none when 0 or unset) and a signal `cancel` aborts. */
  async run<T>(
    log: (message: string) => void,
    timeoutMs: number | undefined,
    work: (ctx: Context) => Promise<T>,
  ): Promise<T> {
    const client = this.client();
    const controller = new AbortController();
    this.#running.add(controller);
    try {
      return await work({ client, log, signal: controller.signal, ...(timeoutMs ? { timeoutMs } : {}) });
    } finally {
      this.#running.delete(controller);
    }
  }

  cancel(): void {
    for (const c of this.#running) c.abort(new Error("the operation was cancelled"));
  }
}
