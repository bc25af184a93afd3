import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS, SANDBOX_SERVICE_INPUTS } from "../api/property-names.ts";
import { CwsResource, type AdoptArgs } from "./resource.ts";

type In<T> = pulumi.Input<T>;

export interface SandboxArgs extends AdoptArgs {
  /** Lowercase letters, digits and hyphens, no leading or trailing hyphen, max 32. */
  name: In<string>;
  /** UID of a READY sandbox template. Replaces on change. Give this or forkFrom. */
  template?: In<string>;
  /** UID of a running sandbox to fork: the new sandbox starts with a copy of its files. Replaces on change. */
  forkFrom?: In<string>;
  /** Optional inventory shape (the template fixes it by default). Replaces on change. */
  resourceName?: In<string>;
  projectId?: In<string>;
  sshKeys?: In<In<string>[]>;
  /** TCP or UDP, 1024-65535; port 22 is reserved. No routing for sandboxes. */
  ports?: In<In<{ port: In<number>; protocol?: In<"TCP" | "UDP"> }>[]>;
  /** Delete the sandbox after this many seconds (0 or unset: never). */
  ttlSec?: In<number>;
  /** Pause the sandbox after this many idle seconds (0 or unset: never). Smaller than ttlSec. */
  idleTimeoutSec?: In<number>;
  /**
   * true freezes the sandbox (processes stopped, files kept); false thaws it and keeps it running;
   * unset leaves it to the service (the idle timeout may pause it).
   */
  frozen?: In<boolean>;
  /** How long create waits for running (default 600 s). */
  readyTimeoutSec?: In<number>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = [...SANDBOX_SERVICE_INPUTS, "forkFrom", "frozen", ...RESOURCE_OUTPUTS.Sandbox];

/** An isolated Linux environment made from a sandbox template, or forked from another sandbox. */
export class Sandbox extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  /** running or frozen. */
  declare readonly status: pulumi.Output<string>;
  declare readonly statusMessage: pulumi.Output<string>;
  declare readonly urls: pulumi.Output<{ port: number; url: string }[]>;
  declare readonly sshPort: pulumi.Output<number | undefined>;
  declare readonly costPerHour: pulumi.Output<number>;
  declare readonly frozenCostPerHour: pulumi.Output<number>;
  declare readonly templateUid: pulumi.Output<string>;
  /** The parent sandbox, for forks. */
  declare readonly parentUid: pulumi.Output<string | undefined>;
  declare readonly revision: pulumi.Output<string>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: SandboxArgs, opts?: pulumi.CustomResourceOptions) {
    super("Sandbox", name, args, PROPERTIES, [], opts);
  }

  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Sandbox {
    return new Sandbox(name, undefined as unknown as SandboxArgs, { ...opts, id: uid });
  }
}
