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

/**
 * How a front end hands the client class over: a function, so that the class (the HTTP client and
 * its dependencies, the largest part of a front end's code) is loaded only when a call first needs
 * it; it may load it asynchronously (`import()`), so that a process whose calls never reach the
 * service (OpenTofu's schema and validation starts) never loads it.
 */
export type ClientClass = () => typeof CwsClient | Promise<typeof CwsClient>;

export class Session {
  readonly #clientClass: ClientClass;
  readonly #baseUrlSetting: string;
  #settings: Settings | Error = new Error(NOT_CONFIGURED);
  #client: CwsClient | undefined;
  readonly #running = new Set<AbortController>();

  /** `baseUrlSetting`: how the user sets the base URL in this front end, named when the service cannot be reached. */
  constructor(clientClass: ClientClass, baseUrlSetting: string) {
    this.#clientClass = clientClass;
    this.#baseUrlSetting = baseUrlSetting;
  }

  /** The settings Configure gave, or why they are wrong: said by the first call that needs the service. */
  configure(settings: Settings | Error): void {
    const same = JSON.stringify(settings) === JSON.stringify(this.#settings);
    if (settings instanceof Error || !same) this.#client = undefined;
    this.#settings = settings;
  }

  /**
   * The client of the configured settings; rejects with what is wrong with them. Its requests pass
   * the process's rate gate for the service and org (client/rate-gate.ts), shared by every client
   * and every call of the process, capped at `maxRequestsPerSecond` when it is set; a service it
   * cannot reach fails its requests after `unreachableTimeoutSec` (client/reach.ts).
   */
  async client(): Promise<CwsClient> {
    const settings = this.#settings;
    if (settings instanceof Error) throw settings;
    if (this.#client) return this.#client;
    const Client = await this.#clientClass();
    // Configure may have come while the class loaded: the client is of the settings asked for.
    if (this.#settings !== settings) return this.client();
    const { baseUrl, org, token, maxRequestsPerSecond, unreachableTimeoutSec } = settings;
    this.#client ??= new Client({
      baseUrl,
      org,
      token,
      rateGate: "shared",
      maxRequestsPerSecond,
      baseUrlSetting: this.#baseUrlSetting,
      ...(unreachableTimeoutSec !== undefined ? { unreachableTimeoutMs: unreachableTimeoutSec * 1000 } : {}),
    });
    return this.#client;
  }

  /**
   * Runs `work` with the client, `log` (and `say`'s status line and notices, when the front end
   * has them), `timeoutMs` (none when 0 or unset) and a signal `cancel` aborts.
   */
  async run<T>(
    log: (message: string) => void,
    timeoutMs: number | undefined,
    work: (ctx: Context) => Promise<T>,
    say: Pick<Context, "status" | "notice"> = {},
  ): Promise<T> {
    const controller = new AbortController();
    this.#running.add(controller);
    try {
      const client = await this.client();
      controller.signal.throwIfAborted(); // cancelled while the client loaded
      return await work({
        client,
        log,
        ...say,
        signal: controller.signal,
        ...(timeoutMs ? { timeoutMs } : {}),
      });
    } finally {
      this.#running.delete(controller);
    }
  }

  cancel(): void {
    for (const c of this.#running) c.abort(new Error("the operation was cancelled"));
  }
}
