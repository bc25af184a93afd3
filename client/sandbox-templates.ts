/** `client.sandboxTemplates`: spec section 4.3. */
import {
  SandboxTemplate,
  SandboxTemplateList,
  type SandboxTemplatePatch,
  type SandboxTemplateQuery,
} from "../api/index.ts";
import { Collection } from "./collection.ts";
import { CwsTemplateFailedError } from "./errors.ts";
import type { Transport } from "./http.ts";
import type { WaitOptions } from "./waiters.ts";

export type SandboxTemplateStatus = SandboxTemplate["status"];

/** USER templates can be updated and deleted (FRESH ones are read-only: 403; a PENDING one cannot be deleted: 409). */
export class SandboxTemplates extends Collection<
  SandboxTemplate,
  SandboxTemplate,
  SandboxTemplateQuery,
  SandboxTemplatePatch
> {
  constructor(transport: Transport) {
    super(transport, "sandbox-templates", SandboxTemplate, SandboxTemplateList);
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
    return this.poll(
      {
        kind: "sandbox template",
        uid,
        target,
        read: (o) => this.get(uid, o),
        check: (t, targets) => {
          if (t.status === "FAILED")
            throw new CwsTemplateFailedError({ uid, target: targets, lastStatus: t.status });
        },
      },
      opts,
    );
  }
}
