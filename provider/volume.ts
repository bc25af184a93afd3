/** Volume: persistent storage mounted on RENTAL workloads. Update: name. Replace: sizeInMb, resourceName. */
import { VolumeCreate, zodViolations, type Volume } from "../api/index.ts";
import {
  collect,
  compact,
  createOnce,
  createdSince,
  deleteIfPresent,
  onePerProperty,
  pick,
  unlessGone,
} from "./common.ts";
import { diffFields, type FieldRule } from "./diff.ts";
import type { CheckFailure, Props, ResourceModule } from "./resource.ts";
import { containsUnknown } from "./unknowns.ts";
import { toWire, wireFieldToProperty } from "./wire.ts";
import { refuseSelfAdoption, toInputWords } from "./workload.ts";

const FIELDS = ["name", "sizeInMb", "resourceName"] as const;
const RULES: Record<string, FieldRule> = {
  name: { kind: "update" },
  sizeInMb: { kind: "replace" },
  resourceName: { kind: "replace" },
};

/** Structural check of a body against a shared schema, reported as Pulumi property failures. */
export function schemaFailures(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  body: unknown,
): CheckFailure[] {
  const r = schema.safeParse(body);
  if (r.success) return [];
  return zodViolations(r.error as never, "INVALID_BODY").map((v) => ({
    property: wireFieldToProperty(v.field),
    reason: toInputWords(v.message),
  }));
}

function outputsOf(v: Volume, inputs: Props): Props {
  return compact({
    ...inputs,
    uid: v.uid,
    size: v.size,
    status: v.state.status,
    statusMessage: v.state.message,
    costPerHour: v.cost_per_hour,
    workloadUid: v.workload_uid,
    mountPath: v.mount_path,
    pvcName: v.pvc_name,
    createdAt: v.created_at,
    updatedAt: v.updated_at,
  });
}

export const volume: ResourceModule = {
  name: "Volume",

  check(_olds, news) {
    const body = pick(news, FIELDS);
    return {
      inputs: news,
      failures: containsUnknown(body) ? [] : onePerProperty(schemaFailures(VolumeCreate, toWire(body))),
    };
  },

  diff(id, olds, news) {
    const d = diffFields(RULES, olds, news);
    refuseSelfAdoption(id, news, d.replaces, "volume");
    return d;
  },

  async create(ctx, inputs) {
    const { volumes } = ctx.client;
    const body = toWire<VolumeCreate>(pick(inputs, FIELDS));
    let uid: string;
    if (inputs.adoptUid) {
      const v = await volumes.get(inputs.adoptUid as string);
      const have = { name: v.name, sizeInMb: v.size, resourceName: v.resource_name };
      const d = diffFields(RULES, have, inputs);
      if (d.replaces.length) {
        throw new Error(
          `cannot adopt volume ${v.uid}: ${d.replaces.map((k) => `${k} is ${JSON.stringify(have[k as keyof typeof have])} on the service but ${JSON.stringify(inputs[k])} in the program`).join("; ")}`,
        );
      }
      if (d.detail.name) await volumes.update(v.uid, { name: inputs.name as string });
      uid = v.uid;
    } else {
      const created = await createOnce({
        what: `volume ${body.name}`,
        create: () => volumes.create(body),
        find: (since) =>
          collect(
            volumes.iterate({}),
            (v) =>
              v.name === body.name &&
              v.size === body.size_in_mb &&
              v.resource_name === body.resource_name &&
              !v.deleted_by &&
              createdSince(v.created_at, since),
          ),
        log: (m) => ctx.log(m),
      });
      uid = created.uid;
    }
    return { id: uid, outputs: outputsOf(await volumes.get(uid), inputs) };
  },

  async read(ctx, id) {
    const v = await unlessGone(() => ctx.client.volumes.get(id));
    if (!v) return undefined;
    if (v.deleted_by) return undefined;
    const inputs = compact({ name: v.name, sizeInMb: v.size, resourceName: v.resource_name });
    return { id, inputs, outputs: outputsOf(v, inputs) };
  },

  async update(ctx, id, olds, news) {
    if (diffFields(RULES, olds, news).detail.name)
      await ctx.client.volumes.update(id, { name: news.name as string });
    return outputsOf(await ctx.client.volumes.get(id), news);
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.volumes.delete(id));
  },
};
