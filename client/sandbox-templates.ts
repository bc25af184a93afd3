/** `client.sandboxTemplates`: spec section 4.3. */
import { SANDBOX_TEMPLATES } from "../api/endpoints/index.ts";
import type { SandboxTemplate, SandboxTemplatePatch, SandboxTemplateQuery } from "../api/index.ts";
import { CwsTemplateFailedError } from "./errors.ts";
import type { Transport } from "./http.ts";
import { ResourceClient } from "./resource-client.ts";
import type { WaitOptions } from "./waiters.ts";

export type SandboxTemplateStatus = SandboxTemplate["status"];

/** USER templates can be updated and deleted (FRESH ones are read-only: 403; a PENDING one cannot be deleted: 409). */
export class SandboxTemplates extends ResourceClient<
  SandboxTemplate,
  SandboxTemplateQuery,
  SandboxTemplatePatch
> {
  constructor(transport: Transport) {
    super(transport, SANDBOX_TEMPLATES);
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
    return this.waitFor("sandbox template", uid, target, opts, (t, targets) => {
      if (t.status === "FAILED")
        throw new CwsTemplateFailedError({ uid, target: targets, lastStatus: t.status });
    });
  }
}
