/** Volume: persistent storage mounted on RENTAL workloads. Update: name. Replace: sizeInMb, resourceName. */
import { RESOURCE_OUTPUTS, VolumeCreate, type Volume } from "../api/index.ts";
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
import type { Props, ResourceModule } from "./resource.ts";
import { containsUnknown } from "./unknowns.ts";
import { RENAMED, propsFrom, schemaFailures, toWire } from "./wire.ts";
import { refuseSelfAdoption } from "./workload.ts";

const FIELDS = ["name", "sizeInMb", "resourceName"] as const;
const RULES: Record<string, FieldRule> = {
  name: { kind: "update" },
  sizeInMb: { kind: "replace" },
  resourceName: { kind: "replace" },
};

/** The inputs as the service has them. */
const inputsOf = (v: Volume): Props => propsFrom(v, FIELDS, RENAMED.Volume);

function outputsOf(v: Volume, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(v, RESOURCE_OUTPUTS.Volume, RENAMED.Volume) });
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
      const have = inputsOf(v);
      const d = diffFields(RULES, have, inputs);
      if (d.replaces.length) {
        throw new Error(
          `cannot adopt volume ${v.uid}: ${d.replaces.map((k) => `${k} is ${JSON.stringify(have[k])} on the service but ${JSON.stringify(inputs[k])} in the program`).join("; ")}`,
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
    const inputs = compact(inputsOf(v));
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
