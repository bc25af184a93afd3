/** The WorkloadTemplate's calls to the API: create once, PATCH, read back (keeping passwords), delete. */
import { WRITE_ONLY_FIELDS, type TemplateCreate, type WorkloadTemplate } from "../../../api/index.ts";
import { collect, createOnce, createdSince } from "../../core/create-once.ts";
import { bodyInputsOf } from "../../core/definition.ts";
import { canonical } from "../../core/diff.ts";
import type { Controller } from "../../core/lifecycle.ts";
import type { Props } from "../../core/types.ts";
import { compact, pick, unlessGone } from "../../core/values.ts";
import { fromWire, propsFrom, snakeToCamel } from "../../core/wire.ts";
import { definition, wireManifest } from "./definition.ts";

const INPUTS = bodyInputsOf(definition);

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

export const controller: Controller<WorkloadTemplate> = {
  get: (ctx, id) => unlessGone(() => ctx.client.templates.get(id)),

  inputsOf(t, olds) {
    const manifest = withSecretsFrom(fromWire<Props>(t.manifest), olds.manifest as Props | undefined);
    delete manifest.type;
    return compact({ ...propsFrom(t, INPUTS), description: t.description || undefined, manifest });
  },

  async create(ctx, inputs) {
    const { templates } = ctx.client;
    const body = compact({ ...pick(inputs, INPUTS), manifest: wireManifest(inputs) }) as TemplateCreate;
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
    return uid;
  },

  async update(ctx, id, _have, want, detail) {
    const patch = compact({
      name: detail.name ? want.name : undefined,
      description: detail.description ? ((want.description as string | undefined) ?? "") : undefined,
      manifest: detail.manifest ? wireManifest(want) : undefined,
    });
    if (Object.keys(patch).length) await ctx.client.templates.update(id, patch);
  },

  delete: (ctx, id) => ctx.client.templates.delete(id),
};
