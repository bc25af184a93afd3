/** `client.sandboxTemplates`: spec section 4.3. */
import {
  SandboxTemplate,
  SandboxTemplateList,
  type Page,
  type SandboxTemplatePatch,
  type SandboxTemplateQuery,
} from "../api/index.ts";
import { CwsTemplateFailedError } from "./errors.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";
import { pollUntil, type WaitOptions } from "./waiters.ts";

const ALL = "/orgs/{org}/sandbox-templates";
const ONE = `${ALL}/{uid}`;

export type SandboxTemplateStatus = SandboxTemplate["status"];

export class SandboxTemplates {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  list(query: SandboxTemplateQuery = {}, opts?: RequestOptions): Promise<Page<SandboxTemplate>> {
    return this.#t.json({ method: "GET", route: ALL, query }, SandboxTemplateList, opts);
  }

  iterate(
    query: Omit<SandboxTemplateQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<SandboxTemplate, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<SandboxTemplate> {
    return this.#t.json({ method: "GET", route: ONE, params: { uid } }, SandboxTemplate, opts);
  }

  /** USER templates only (FRESH ones are read-only: 403). */
  update(uid: string, patch: SandboxTemplatePatch, opts?: RequestOptions): Promise<SandboxTemplate> {
    return this.#t.json({ method: "PATCH", route: ONE, params: { uid }, body: patch }, SandboxTemplate, opts);
  }

  /** USER templates only; a PENDING template gives 409. */
  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.#t.empty({ method: "DELETE", route: ONE, params: { uid } }, opts);
  }

  /**
   * Polls the template until its status is one of `target` (usually READY). Fails fast with
   * `CwsTemplateFailedError` on FAILED (unless it is a target), `CwsWaitTimeoutError` at the deadline.
   */
  waitForStatus(
    uid: string,
    target: SandboxTemplateStatus | SandboxTemplateStatus[],
    opts: WaitOptions,
  ): Promise<SandboxTemplate> {
    const targets: string[] = Array.isArray(target) ? target : [target];
    return pollUntil(
      {
        kind: "sandbox template",
        uid,
        target: targets,
        read: (left, signal, onRetryAfter) =>
          this.get(uid, { signal, timeoutMs: Math.min(left, this.#t.defaultTimeoutMs()), onRetryAfter }),
        statusOf: (t) => t.status,
        check: (t) => {
          if (t.status === "FAILED")
            throw new CwsTemplateFailedError({ uid, target: targets, lastStatus: t.status });
        },
      },
      opts,
    );
  }
}
