/** `CwsClient`: configuration, the shared transport and the namespaces. */
import { inspect } from "node:util";
import type { Dispatcher } from "undici";
import pkg from "../package.json" with { type: "json" };
import { Transport } from "./http.ts";
import { Meta } from "./meta.ts";
import { DEFAULT_UNREACHABLE_TIMEOUT_MS } from "./reach.ts";
import { RateGate, sharedRateGate } from "./rate-gate.ts";
import { DEFAULT_RETRY, type RetryInfo, type RetryOptions } from "./retry.ts";
import { SandboxTemplates } from "./sandbox-templates.ts";
import { Sandboxes } from "./sandboxes.ts";
import { SshKeys } from "./ssh-keys.ts";
import { Templates } from "./templates.ts";
import { Volumes } from "./volumes.ts";
import { Workloads } from "./workloads.ts";

export interface CwsClientOptions {
  /** Service base URL including the version prefix, e.g. `https://cws.example.com/v3`. Default: `CWS_BASE_URL`. */
  baseUrl?: string;
  /** Organization slug. Default: `CWS_ORG`. */
  org?: string;
  /** API token (personal or service token). Default: `CWS_API_TOKEN`. Never logged or shown. */
  token?: string;
  /** Per-attempt request timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries of a retryable failure (default 3; see retry.ts for what is retried). */
  maxRetries?: number;
  /** Backoff tuning: first step, largest step and largest honoured Retry-After, in ms. */
  retry?: Partial<Omit<RetryOptions, "maxRetries">>;
  /** User-Agent header (default `pulumi-cws/<version> node/<version>`). */
  userAgent?: string;
  /** undici dispatcher to send requests through (default: a keep-alive Agent owned by the client). */
  dispatcher?: Dispatcher;
  /**
   * Refuse responses carrying fields the contract does not declare (default false: unknown fields
   * are dropped, so a newer service does not break this client). Meant for conformance tests.
   */
  strictResponses?: boolean;
  /**
   * How long, in ms, requests keep retrying a service they cannot reach at all (connection refused,
   * unknown host, connect timeout), counted from the first such failure since it last answered
   * (default 20 000; see reach.ts). Past it they fail with `CwsUnreachableError`.
   */
  unreachableTimeoutMs?: number;
  /** How the user sets the base URL, named in the error of a service that cannot be reached (default `baseUrl (or CWS_BASE_URL)`). */
  baseUrlSetting?: string;
  /** Called before each retry sleep (for logging or metrics). Receives no headers or bodies. */
  onRetry?: (info: RetryInfo) => void;
  /**
   * A rate gate every request passes through (rate-gate.ts): `"shared"` for the process's gate of
   * this base URL and org (every client made so shares it), or a gate of your own. Default: none
   * (each request retries a 429 on its own), unless `maxRequestsPerSecond` is set.
   */
  rateGate?: RateGate | "shared";
  /**
   * The most requests a second sent through the gate: sets the cap of the shared gate, or makes
   * the client a gate of its own with that cap when `rateGate` is not set.
   */
  maxRequestsPerSecond?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const VERSION: string = pkg.version;

export class CwsClient {
  readonly baseUrl: string;
  readonly org: string;
  readonly workloads: Workloads;
  readonly sandboxes: Sandboxes;
  readonly sandboxTemplates: SandboxTemplates;
  readonly templates: Templates;
  readonly volumes: Volumes;
  readonly sshKeys: SshKeys;
  readonly meta: Meta;
  #transport: Transport;

  constructor(options: CwsClientOptions = {}) {
    const env = process.env;
    const baseUrl = options.baseUrl ?? env.CWS_BASE_URL;
    const org = options.org ?? env.CWS_ORG;
    const token = options.token ?? env.CWS_API_TOKEN;
    const missing = [
      !baseUrl && "baseUrl (or CWS_BASE_URL)",
      !org && "org (or CWS_ORG)",
      !token && "token (or CWS_API_TOKEN)",
    ].filter(Boolean);
    if (missing.length) throw new Error(`CwsClient: missing ${missing.join(", ")}`);
    let url: URL;
    try {
      url = new URL(baseUrl!);
    } catch {
      throw new Error(`CwsClient: baseUrl is not a valid URL: ${baseUrl}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new Error(`CwsClient: baseUrl must be http(s): ${baseUrl}`);
    if (url.username || url.password)
      throw new Error("CwsClient: baseUrl must not carry credentials; pass token instead");
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new Error("CwsClient: timeoutMs must be positive");
    const maxRetries = options.maxRetries ?? DEFAULT_RETRY.maxRetries;
    if (!(Number.isInteger(maxRetries) && maxRetries >= 0))
      throw new Error("CwsClient: maxRetries must be a non-negative integer");

    const unreachableTimeoutMs = options.unreachableTimeoutMs ?? DEFAULT_UNREACHABLE_TIMEOUT_MS;
    if (!(unreachableTimeoutMs >= 0)) throw new Error("CwsClient: unreachableTimeoutMs must not be negative");

    const { rateGate, maxRequestsPerSecond } = options;
    const gate =
      rateGate === "shared"
        ? sharedRateGate(url.href, org!, { maxRequestsPerSecond })
        : (rateGate ??
          (maxRequestsPerSecond !== undefined ? new RateGate({ maxRequestsPerSecond }) : undefined));
    if (rateGate instanceof RateGate && maxRequestsPerSecond !== undefined)
      rateGate.setMaxRequestsPerSecond(maxRequestsPerSecond);

    this.#transport = new Transport({
      baseUrl: baseUrl!,
      org: org!,
      token: token!,
      timeoutMs,
      retry: { ...DEFAULT_RETRY, ...options.retry, maxRetries },
      userAgent: options.userAgent ?? `pulumi-cws/${VERSION} node/${process.versions.node}`,
      dispatcher: options.dispatcher,
      strictResponses: options.strictResponses ?? false,
      onRetry: options.onRetry,
      gate,
      unreachableTimeoutMs,
      baseUrlSetting: options.baseUrlSetting ?? "baseUrl (or CWS_BASE_URL)",
    });
    this.baseUrl = this.#transport.baseUrl;
    this.org = org!;
    this.workloads = new Workloads(this.#transport);
    this.sandboxes = new Sandboxes(this.#transport);
    this.sandboxTemplates = new SandboxTemplates(this.#transport);
    this.templates = new Templates(this.#transport);
    this.volumes = new Volumes(this.#transport);
    this.sshKeys = new SshKeys(this.#transport);
    this.meta = new Meta(this.#transport);
  }

  /** `text` (something the service said, which may echo it) with the client's token as `[secret]`. */
  scrub(text: string): string {
    return this.#transport.scrub(text);
  }

  /** Ends open streams and closes the keep-alive connections (of a dispatcher the client created). */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Same as `close()`, for `await using client = new CwsClient()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  toJSON(): { baseUrl: string; org: string } {
    return { baseUrl: this.baseUrl, org: this.org };
  }

  [inspect.custom](): string {
    return `CwsClient { baseUrl: '${this.baseUrl}', org: '${this.org}' }`;
  }
}
