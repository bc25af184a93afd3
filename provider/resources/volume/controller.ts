/** The Volume's calls to the API: create once, rename, read back, delete. */
import type { Volume, VolumeCreate, VolumePatch } from "../../../api/index.ts";
import { createOnce, findCreated } from "../../core/create-once.ts";
import { bodyInputsOf, renamesOf } from "../../core/definition.ts";
import { patchUpdate } from "../../core/patch.ts";
import type { Controller } from "../../core/lifecycle.ts";
import { compact, pick, unlessGone } from "../../core/values.ts";
import { propsFrom, toWire } from "../../core/wire.ts";
import { definition } from "./definition.ts";

const INPUTS = bodyInputsOf(definition);
const NAMES = renamesOf(definition);

export const controller: Controller<Volume> = {
  async get(ctx, id) {
    const v = await unlessGone(() => ctx.client.volumes.get(id));
    return v && !v.deleted_by ? v : undefined;
  },
  inputsOf: (v) => compact(propsFrom(v, INPUTS, NAMES)),

  async create(ctx, inputs) {
    const { volumes } = ctx.client;
    const body = toWire<VolumeCreate>(pick(inputs, INPUTS));
    const { uid } = await createOnce({
      what: `volume ${body.name}`,
      create: () => volumes.create(body),
      find: findCreated(
        () => volumes.iterate({}),
        (v) =>
          v.name === body.name &&
          v.size === body.size_in_mb &&
          v.resource_name === body.resource_name &&
          !v.deleted_by,
      ),
      log: (m) => ctx.log(m),
    });
    return uid;
  },

  update: patchUpdate<VolumePatch>(INPUTS, (ctx, id, patch) => ctx.client.volumes.update(id, patch), {
    renames: NAMES,
  }),

  delete: (ctx, id) => ctx.client.volumes.delete(id),
};
