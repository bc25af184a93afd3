/** The SshKey's calls to the API: create once, rename, read back, delete. */
import type { SshKey, SshKeyCreate, SshKeyPatch } from "../../../api/index.ts";
import { createOnce, findCreated } from "../../core/create-once.ts";
import { bodyInputsOf, renamesOf } from "../../core/definition.ts";
import { patchUpdate } from "../../core/patch.ts";
import type { Controller } from "../../core/lifecycle.ts";
import { pick, unlessGone } from "../../core/values.ts";
import { propsFrom, toWire } from "../../core/wire.ts";
import { definition, keyIdentity } from "./definition.ts";

const INPUTS = bodyInputsOf(definition);
const NAMES = renamesOf(definition);

export const controller: Controller<SshKey> = {
  get: (ctx, id) => unlessGone(() => ctx.client.sshKeys.get(id)),
  inputsOf: (k) => propsFrom(k, INPUTS, NAMES),

  async create(ctx, inputs) {
    const { sshKeys } = ctx.client;
    const body = toWire<SshKeyCreate>(pick(inputs, INPUTS), NAMES);
    const { uid } = await createOnce({
      what: `SSH key ${body.name}`,
      create: () => sshKeys.create(body),
      find: findCreated(
        () => sshKeys.iterate({}),
        (k) => k.name === body.name && keyIdentity(k.public_key_raw) === keyIdentity(body.ssh_key),
      ),
      log: (m) => ctx.log(m),
    });
    return uid;
  },

  update: patchUpdate<SshKeyPatch>(INPUTS, (ctx, id, patch) => ctx.client.sshKeys.update(id, patch), {
    renames: NAMES,
  }),

  delete: (ctx, id) => ctx.client.sshKeys.delete(id),
};
