import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS } from "../api/property-names.ts";
import { CwsResource } from "./resource.ts";

export interface SandboxTemplateArgs {
  /** 1-64 letters, digits, dots, underscores, hyphens, starting with a letter or digit. Replaces on change. */
  name: pulumi.Input<string>;
  /** UID of the running sandbox whose files the template snapshots. Replaces on change. */
  sourceSandbox: pulumi.Input<string>;
  /** Max 128 characters. */
  displayName?: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** How long create waits for READY (default 600 s). */
  readyTimeoutSec?: pulumi.Input<number>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = ["name", "displayName", "description", ...RESOURCE_OUTPUTS.SandboxTemplate];

/** A USER sandbox template published from a running sandbox; new sandboxes start with its files. */
export class SandboxTemplate extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  /** Always USER for published templates. */
  declare readonly kind: pulumi.Output<string>;
  /** READY once published. */
  declare readonly status: pulumi.Output<string>;
  declare readonly templateResourceName: pulumi.Output<string>;
  declare readonly costPerHour: pulumi.Output<number>;
  declare readonly frozenCostPerHour: pulumi.Output<number>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: SandboxTemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super("SandboxTemplate", name, args, PROPERTIES, [], opts);
  }

  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): SandboxTemplate {
    return new SandboxTemplate(name, undefined as unknown as SandboxTemplateArgs, { ...opts, id: uid });
  }
}
