/** SshKey: a public key that workloads reference. Update: name. Replace: publicKey. */
import { SshKeyCreate, type SshKey } from "../api/index.ts";
import {
  collect,
  compact,
  createOnce,
  createdSince,
  deleteIfPresent,
  onePerProperty,
  unlessGone,
} from "./common.ts";
import { diffFields, type FieldRule } from "./diff.ts";
import type { Props, ResourceModule } from "./resource.ts";
import { containsUnknown } from "./unknowns.ts";
import { schemaFailures } from "./volume.ts";
import { refuseSelfAdoption } from "./workload.ts";

/** Key type and data; the comment and surrounding whitespace are not part of the key's identity. */
const keyIdentity = (v: unknown) => (typeof v === "string" ? v.trim().split(/\s+/).slice(0, 2).join(" ") : v);

const RULES: Record<string, FieldRule> = {
  name: { kind: "update" },
  publicKey: { kind: "replace", normalise: keyIdentity },
};

function outputsOf(k: SshKey, inputs: Props): Props {
  return compact({
    ...inputs,
    uid: k.uid,
    publicKeyRaw: k.public_key_raw,
    createdAt: k.created_at,
    updatedAt: k.updated_at,
  });
}

export const sshKey: ResourceModule = {
  name: "SshKey",

  check(_olds, news) {
    const body = { name: news.name, ssh_key: news.publicKey };
    return {
      inputs: news,
      failures: containsUnknown(body)
        ? []
        : onePerProperty(
            schemaFailures(SshKeyCreate, body).map((f) =>
              f.property === "sshKey"
                ? { property: "publicKey", reason: f.reason.replace(/\bsshKey\b/g, "publicKey") }
                : f,
            ),
          ),
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
      if (keyIdentity(key.public_key_raw) !== keyIdentity(inputs.publicKey)) {
        throw new Error(
          `cannot adopt SSH key ${key.uid}: its public key differs from the program's publicKey`,
        );
      }
      if (key.name !== inputs.name) key = await sshKeys.update(key.uid, { name: inputs.name as string });
    } else {
      const body = { name: inputs.name as string, ssh_key: inputs.publicKey as string };
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
    const publicKey =
      keyIdentity(olds.publicKey) === keyIdentity(k.public_key_raw) ? olds.publicKey : k.public_key_raw;
    const inputs = { name: k.name, publicKey };
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
