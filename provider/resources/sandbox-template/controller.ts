/** The SandboxTemplate's calls to the API: publish once, wait for READY, PATCH its texts, delete. */
import type { SandboxTemplate, SandboxTemplatePatch } from "../../../api/index.ts";
import { patchUpdate } from "../../core/patch.ts";
import { createOnce, findCreated } from "../../core/create-once.ts";
import type { Controller } from "../../core/lifecycle.ts";
import { waitOptions } from "../../core/timeouts.ts";
import { compact, unlessGone } from "../../core/values.ts";
import { propsFrom } from "../../core/wire.ts";
import { PUBLISH_INPUTS, publishBody } from "./definition.ts";

export const controller: Controller<SandboxTemplate> = {
  get: (ctx, id) => unlessGone(() => ctx.client.sandboxTemplates.get(id)),

  inputsOf(t, olds) {
    const read = propsFrom(t, PUBLISH_INPUTS);
    return compact({
      name: read.name,
      sourceSandbox: olds.sourceSandbox,
      displayName: read.displayName || undefined,
      description: read.description || undefined,
      readyTimeoutSec: olds.readyTimeoutSec,
    });
  },

  async create(ctx, inputs) {
    const { sandboxes, sandboxTemplates } = ctx.client;
    const source = inputs.sourceSandbox as string | undefined;
    if (!source)
      throw new Error(
        `cannot publish sandbox template ${String(inputs.name)}: sourceSandbox (the UID of a running sandbox) is required`,
      );
    ctx.log(`publishing sandbox ${source} as template ${String(inputs.name)}`);
    const body = publishBody(inputs);
    // Publishing twice would make two templates: a lost answer is found by the whole request.
    const { uid } = await createOnce({
      what: `sandbox template ${body.name}`,
      create: () => sandboxes.publish(source, body),
      find: findCreated(
        () => sandboxTemplates.iterate({ kind: "USER" }),
        (t) =>
          t.name === body.name &&
          (body.display_name === undefined || t.display_name === body.display_name) &&
          (body.description === undefined || t.description === body.description),
      ),
      log: (m) => ctx.log(m),
    });
    return uid;
  },

  async converge(ctx, id, inputs, olds) {
    // Only a new template waits: one that is READY never goes back.
    if (Object.keys(olds).length === 0)
      await ctx.client.sandboxTemplates.waitForStatus(id, "READY", waitOptions(ctx, inputs));
  },

  // The texts change in place; an input the program no longer sets is cleared: "".
  update: patchUpdate<SandboxTemplatePatch>(
    PUBLISH_INPUTS,
    (ctx, id, patch) => ctx.client.sandboxTemplates.update(id, patch),
    { cleared: "" },
  ),

  delete: (ctx, id) => ctx.client.sandboxTemplates.delete(id),
};
