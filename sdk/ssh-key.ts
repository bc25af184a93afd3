import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS } from "../api/property-names.ts";
import { CwsResource, type AdoptArgs } from "./resource.ts";

export interface SshKeyArgs extends AdoptArgs {
  name: pulumi.Input<string>;
  /** OpenSSH public key: ssh-ed25519, ssh-rsa or ecdsa-sha2-*. Replaces on change (the comment is ignored). */
  publicKey: pulumi.Input<string>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = ["name", "publicKey", ...RESOURCE_OUTPUTS.SshKey];

/** An SSH public key that workloads and sandboxes reference by UID. */
export class SshKey extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly publicKey: pulumi.Output<string>;
  declare readonly publicKeyRaw: pulumi.Output<string>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: SshKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super("SshKey", name, args, PROPERTIES, [], opts);
  }

  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): SshKey {
    return new SshKey(name, undefined as unknown as SshKeyArgs, { ...opts, id: uid });
  }
}
