import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS } from "../api/property-names.ts";
import { CwsResource, type AdoptArgs } from "./resource.ts";

export interface VolumeArgs extends AdoptArgs {
  name: pulumi.Input<string>;
  /** Size in megabytes. Replaces on change. */
  sizeInMb: pulumi.Input<number>;
  /** Inventory resource name. Replaces on change. */
  resourceName: pulumi.Input<string>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = ["name", "sizeInMb", "resourceName", ...RESOURCE_OUTPUTS.Volume];

/** A persistent volume, mounted on RENTAL workloads through their `volumes` input. */
export class Volume extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly size: pulumi.Output<number>;
  declare readonly status: pulumi.Output<string>;
  declare readonly statusMessage: pulumi.Output<string>;
  declare readonly costPerHour: pulumi.Output<number>;
  declare readonly workloadUid: pulumi.Output<string | undefined>;
  declare readonly mountPath: pulumi.Output<string | undefined>;
  declare readonly pvcName: pulumi.Output<string>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    super("Volume", name, args, PROPERTIES, [], opts);
  }

  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Volume {
    return new Volume(name, undefined as unknown as VolumeArgs, { ...opts, id: uid });
  }
}
