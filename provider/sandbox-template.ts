/**
 * SandboxTemplate: a USER sandbox template published from a running sandbox (a snapshot of its
 * files). Update: displayName, description. Replace: name, sourceSandbox.
 */
import { PublishBody, RESOURCE_OUTPUTS, type SandboxTemplate } from "../api/index.ts";
import {
  DEFAULT_READY_TIMEOUT_SEC,
  collect,
  compact,
  createOnce,
  createdSince,
  deleteIfPresent,
  messageOf,
  onePerProperty,
  pick,
  unlessGone,
  waitOptions,
} from "./common.ts";
import { diffFields, keepProgramShape, type FieldRule } from "./diff.ts";
import { PartialStateError, type Props, type ResourceModule } from "./resource.ts";
import { containsUnknown } from "./unknowns.ts";
import { RENAMED, propsFrom, schemaFailures, toWire } from "./wire.ts";

const RULES: Record<string, FieldRule> = {
  name: { kind: "replace" },
  sourceSandbox: { kind: "replace" },
  displayName: { kind: "update", normalise: (v) => v || undefined },
  description: { kind: "update", normalise: (v) => v || undefined },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

/** Inputs the publish request carries (sourceSandbox is its path) and the ones a PATCH changes. */
const PUBLISH_INPUTS = ["name", "displayName", "description"] as const;
const PATCH_INPUTS = ["displayName", "description"] as const;

const publishBody = (inputs: Props) => toWire<PublishBody>(compact(pick(inputs, PUBLISH_INPUTS)));

function outputsOf(t: SandboxTemplate, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(t, RESOURCE_OUTPUTS.SandboxTemplate, RENAMED.SandboxTemplate) });
}

export const sandboxTemplate: ResourceModule = {
  name: "SandboxTemplate",

  check(_olds, news) {
    const failures = [];
    if (news.sourceSandbox === undefined)
      failures.push({
        property: "sourceSandbox",
        reason: "sourceSandbox (the UID of a running sandbox) is required",
      });
    const body = publishBody(news);
    if (!containsUnknown(body)) failures.push(...schemaFailures(PublishBody, body));
    return { inputs: news, failures: onePerProperty(failures) };
  },

  diff(_id, olds, news) {
    return diffFields(RULES, olds, news);
  },

  async create(ctx, inputs) {
    const { sandboxes, sandboxTemplates } = ctx.client;
    const source = inputs.sourceSandbox as string;
    ctx.log(`publishing sandbox ${source} as template ${String(inputs.name)}`);
    const body = publishBody(inputs);
    // Publishing twice would make two templates: a lost answer is found by the whole request.
    const published = await createOnce({
      what: `sandbox template ${body.name}`,
      create: () => sandboxes.publish(source, body),
      find: (since) =>
        collect(
          sandboxTemplates.iterate({ kind: "USER" }),
          (t) =>
            t.name === body.name &&
            (body.display_name === undefined || t.display_name === body.display_name) &&
            (body.description === undefined || t.description === body.description) &&
            createdSince(t.created_at, since),
        ),
      log: (m) => ctx.log(m),
    });
    try {
      await sandboxTemplates.waitForStatus(published.uid, "READY", waitOptions(ctx, inputs));
    } catch (e) {
      const now = await sandboxTemplates.get(published.uid).catch(() => undefined);
      throw new PartialStateError(
        published.uid,
        now ? outputsOf(now, inputs) : { ...inputs, uid: published.uid },
        `template ${published.uid} did not become READY: ${messageOf(e)}`,
      );
    }
    return { id: published.uid, outputs: outputsOf(await sandboxTemplates.get(published.uid), inputs) };
  },

  async read(ctx, id, olds) {
    const t = await unlessGone(() => ctx.client.sandboxTemplates.get(id));
    if (!t) return undefined;
    const read = propsFrom(t, PUBLISH_INPUTS);
    const fresh = compact({
      name: read.name,
      sourceSandbox: olds.sourceSandbox,
      displayName: read.displayName || undefined,
      description: read.description || undefined,
      readyTimeoutSec: olds.readyTimeoutSec,
    });
    const inputs = keepProgramShape(RULES, olds, fresh);
    return { id, inputs, outputs: outputsOf(t, inputs) };
  },

  async update(ctx, id, olds, news) {
    const d = diffFields(RULES, olds, news).detail;
    // An input the program no longer sets is cleared: "".
    const patch = toWire(Object.fromEntries(PATCH_INPUTS.filter((k) => d[k]).map((k) => [k, news[k] ?? ""])));
    const t = Object.keys(patch).length
      ? await ctx.client.sandboxTemplates.update(id, patch)
      : await ctx.client.sandboxTemplates.get(id);
    return outputsOf(t, news);
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.sandboxTemplates.delete(id));
  },
};
