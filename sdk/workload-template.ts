import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS, RESOURCE_SECRETS } from "../api/property-names.ts";
import { CwsResource } from "./resource.ts";
import type { WorkloadArgs } from "./workload.ts";

/** A workload manifest: Workload inputs without the lifecycle switches; `type` comes from the template. */
export type WorkloadManifest = Omit<
  WorkloadArgs,
  "type" | "deploy" | "suspended" | "readyTimeoutSec" | "adoptUid"
> & {
  type?: WorkloadArgs["type"];
};

export interface WorkloadTemplateArgs {
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** Workload type. Replaces on change. */
  type: pulumi.Input<"RENTAL" | "VM" | "BM">;
  /** Validated at preview as a workload create body of this type. */
  manifest: pulumi.Input<WorkloadManifest>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = ["name", "description", "type", "manifest", ...RESOURCE_OUTPUTS.WorkloadTemplate];

/** A reusable workload template (not a sandbox template). */
export class WorkloadTemplate extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly visibility: pulumi.Output<"PUBLIC" | "PRIVATE">;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: WorkloadTemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super("WorkloadTemplate", name, args, PROPERTIES, RESOURCE_SECRETS.WorkloadTemplate, opts);
  }

  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): WorkloadTemplate {
    return new WorkloadTemplate(name, undefined as unknown as WorkloadTemplateArgs, { ...opts, id: uid });
  }
}
