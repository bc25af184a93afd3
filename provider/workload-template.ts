/**
 * WorkloadTemplate: a reusable workload manifest. Update: name, description, manifest.
 * Replace: type. The manifest is written like Workload inputs (camelCase) and validated as a
 * workload create body whose type equals the template's type.
 */
import {
  RESOURCE_OUTPUTS,
  TemplateCreate,
  WRITE_ONLY_FIELDS,
  validateWorkloadCreate,
  type WorkloadTemplate,
} from "../api/index.ts";
import {
  collect,
  compact,
  createOnce,
  createdSince,
  deleteIfPresent,
  onePerProperty,
  unlessGone,
} from "./common.ts";
import { canonical, diffFields, keepProgramShape, type FieldRule } from "./diff.ts";
import type { CheckFailure, Props, ResourceModule } from "./resource.ts";
import { containsUnknown } from "./unknowns.ts";
import { failureOf, fromWire, propsFrom, schemaFailures, snakeToCamel, toWire } from "./wire.ts";

const RULES: Record<string, FieldRule> = {
  type: { kind: "replace" },
  name: { kind: "update" },
  description: { kind: "update", normalise: (v) => v || undefined },
  manifest: { kind: "update", normalise: withoutType },
};

/** The manifest fields holding passwords the service never returns (WORKLOAD_FIELDS). */
const WITH_PASSWORD = Object.keys(WRITE_ONLY_FIELDS);

/** A wire manifest without the passwords the service never returns. */
function withoutPasswords(manifest: Record<string, unknown>): Record<string, unknown> {
  const out = { ...manifest };
  for (const key of WITH_PASSWORD) {
    const v = out[key] as Record<string, unknown> | undefined;
    if (v && typeof v === "object") {
      const { password: _p, ...rest } = v;
      out[key] = rest;
    }
  }
  return out;
}

function withoutType(v: unknown): unknown {
  if (!v || typeof v !== "object") return v;
  const { type: _type, ...rest } = v as Props;
  return rest;
}

/** The wire manifest: camelCase keys converted, type filled in from the template's type. */
function wireManifest(inputs: Props): Record<string, unknown> {
  return { type: inputs.type, ...toWire<Record<string, unknown>>(inputs.manifest ?? {}) };
}

function check(news: Props): CheckFailure[] {
  if (containsUnknown(news)) return [];
  const failures = schemaFailures(
    TemplateCreate,
    compact({ name: news.name, description: news.description, type: news.type, manifest: {} }),
  );
  const manifest = news.manifest as Props | undefined;
  if (!manifest || typeof manifest !== "object")
    return [...failures, { property: "manifest", reason: "manifest is required" }];
  if (manifest.type !== undefined && manifest.type !== news.type) {
    failures.push({
      property: "manifest.type",
      reason: `manifest.type must equal type (${String(news.type)})`,
    });
  }
  const result = validateWorkloadCreate(wireManifest(news));
  if (!result.ok) {
    for (const v of result.violations) {
      const f = failureOf(v);
      failures.push({ property: `manifest.${f.property}`, reason: `manifest: ${f.reason}` });
    }
  }
  return failures;
}

/** The service never returns manifest passwords: keep the ones in state so refresh sees no change. */
function withSecretsFrom(manifest: Props, old: Props | undefined): Props {
  for (const key of WITH_PASSWORD.map(snakeToCamel)) {
    const was = old?.[key] as Props | undefined;
    const now = manifest[key] as Props | undefined;
    if (was?.password !== undefined && now && now.password === undefined)
      manifest[key] = { ...now, password: was.password };
    if (key === "vmConfig" && was && !now) manifest[key] = was;
  }
  return manifest;
}

function outputsOf(t: WorkloadTemplate, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(t, RESOURCE_OUTPUTS.WorkloadTemplate) });
}

export const workloadTemplate: ResourceModule = {
  name: "WorkloadTemplate",

  check(_olds, news) {
    return { inputs: news, failures: onePerProperty(check(news)) };
  },

  diff(_id, olds, news) {
    return diffFields(RULES, olds, news);
  },

  async create(ctx, inputs) {
    const { templates } = ctx.client;
    const body = compact({
      name: inputs.name,
      description: inputs.description,
      type: inputs.type,
      manifest: wireManifest(inputs),
    }) as TemplateCreate;
    const { uid } = await createOnce({
      what: `workload template ${body.name}`,
      create: () => templates.create(body),
      find: async (since) => {
        const same = await collect(
          templates.iterate({ type: body.type }),
          (t) =>
            t.name === body.name &&
            (t.description ?? "") === (body.description ?? "") &&
            canonical(withoutPasswords(t.manifest)) === canonical(withoutPasswords(body.manifest)),
        );
        const full = await Promise.all(same.map((t) => unlessGone(() => templates.get(t.uid))));
        return full.filter((t) => t !== undefined && createdSince(t.created_at, since)) as { uid: string }[];
      },
      log: (m) => ctx.log(m),
    });
    return { id: uid, outputs: outputsOf(await templates.get(uid), inputs) };
  },

  async read(ctx, id, olds) {
    const t = await unlessGone(() => ctx.client.templates.get(id));
    if (!t) return undefined;
    const manifest = withSecretsFrom(fromWire<Props>(t.manifest), olds.manifest as Props | undefined);
    delete manifest.type;
    const inputs = keepProgramShape(
      RULES,
      olds,
      compact({ name: t.name, description: t.description || undefined, type: t.type, manifest }),
    );
    return { id, inputs, outputs: outputsOf(t, inputs) };
  },

  async update(ctx, id, olds, news) {
    const d = diffFields(RULES, olds, news).detail;
    const patch = compact({
      name: d.name ? news.name : undefined,
      description: d.description ? ((news.description as string | undefined) ?? "") : undefined,
      manifest: d.manifest ? wireManifest(news) : undefined,
    });
    const t = Object.keys(patch).length
      ? await ctx.client.templates.update(id, patch)
      : await ctx.client.templates.get(id);
    return outputsOf(t, news);
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.templates.delete(id));
  },
};
