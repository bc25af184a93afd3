/** SshKey: a public key that workloads reference. Update: name. Replace: publicKey. */
import { RESOURCE_OUTPUTS, SshKeyCreate, type SshKey } from "../api/index.ts";
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

const NAMES = RENAMED.SshKey;
const INPUTS = ["name", "publicKey"] as const;

/** Key type and data; the comment and surrounding whitespace are not part of the key's identity. */
const keyIdentity = (v: unknown) => (typeof v === "string" ? v.trim().split(/\s+/).slice(0, 2).join(" ") : v);

const RULES: Record<string, FieldRule> = {
  name: { kind: "update" },
  publicKey: { kind: "replace", normalise: keyIdentity },
};

/** The create body: the program's name and key. */
const createBody = (inputs: Props) => toWire<SshKeyCreate>(pick(inputs, INPUTS), NAMES);

/** The inputs as the service has them. */
const inputsOf = (k: SshKey) => propsFrom(k, INPUTS, NAMES);

function outputsOf(k: SshKey, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(k, RESOURCE_OUTPUTS.SshKey) });
}

export const sshKey: ResourceModule = {
  name: "SshKey",

  check(_olds, news) {
    const body = createBody(news);
    return {
      inputs: news,
      failures: containsUnknown(body) ? [] : onePerProperty(schemaFailures(SshKeyCreate, body, NAMES)),
    };
  },

  diff(id, olds, news) {
    const d = diffFields(RULES, olds, news);
    refuseSelfAdoption(id, news, d.replaces, "SSH key");
    return d;
  },

  async create(ctx, inputs) {
    const { sshKeys } = ctx.client;
    let key: SshKey;
    if (inputs.adoptUid) {
      key = await sshKeys.get(inputs.adoptUid as string);
      if (keyIdentity(inputsOf(key).publicKey) !== keyIdentity(inputs.publicKey)) {
        throw new Error(
          `cannot adopt SSH key ${key.uid}: its public key differs from the program's publicKey`,
        );
      }
      if (key.name !== inputs.name) key = await sshKeys.update(key.uid, { name: inputs.name as string });
    } else {
      const body = createBody(inputs);
      const { uid } = await createOnce({
        what: `SSH key ${body.name}`,
        create: () => sshKeys.create(body),
        find: (since) =>
          collect(
            sshKeys.iterate({}),
            (k) =>
              k.name === body.name &&
              keyIdentity(k.public_key_raw) === keyIdentity(body.ssh_key) &&
              createdSince(k.created_at, since),
          ),
        log: (m) => ctx.log(m),
      });
      key = await sshKeys.get(uid);
    }
    return { id: key.uid, outputs: outputsOf(key, inputs) };
  },

  async read(ctx, id, olds) {
    const k = await unlessGone(() => ctx.client.sshKeys.get(id));
    if (!k) return undefined;
    // Keep the program's spelling of the key when only the comment or spacing differ.
    const inputs = inputsOf(k);
    if (keyIdentity(olds.publicKey) === keyIdentity(inputs.publicKey)) inputs.publicKey = olds.publicKey;
    return { id, inputs, outputs: outputsOf(k, inputs) };
  },

  async update(ctx, id, olds, news) {
    const k = diffFields(RULES, olds, news).detail.name
      ? await ctx.client.sshKeys.update(id, { name: news.name as string })
      : await ctx.client.sshKeys.get(id);
    return outputsOf(k, news);
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.sshKeys.delete(id));
  },
};
