import type * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OUTPUTS, RESOURCE_SECRETS, WORKLOAD_INPUTS } from "../api/property-names.ts";
import { CwsResource, type AdoptArgs } from "./resource.ts";

type In<T> = pulumi.Input<T>;

export interface PortArgs {
  /** 1024-65535. */
  port: In<number>;
  /** TCP (default), UDP or SCTP (VM: TCP or UDP). */
  protocol?: In<"TCP" | "UDP" | "SCTP">;
  /** PROXIED (default) or DIRECT; at most 10 DIRECT ports. */
  routing?: In<"PROXIED" | "DIRECT">;
}
export interface VolumeMountArgs {
  uid: In<string>;
  /** Absolute path in the container. */
  mountPath: In<string>;
  readOnly?: In<boolean>;
}
export interface RegistryAuthArgs {
  server: In<string>;
  username: In<string>;
  /** Stored as a secret; the service never returns it. */
  password: In<string>;
}

export interface WorkloadArgs extends AdoptArgs {
  /** RENTAL, VM or BM. Changing it replaces the workload. */
  type: In<"RENTAL" | "VM" | "BM">;
  /** Lowercase letters, digits and hyphens, max 32. */
  name: In<string>;
  /** RENTAL: container image; VM: VM image name; BM: BM image name. */
  image: In<string>;
  /** Inventory resource name. Replaces on change. */
  resourceName: In<string>;
  /** BM only: active region. Replaces on change. */
  region?: In<string>;
  /** VM and BM: an ACTIVE reservation. Replaces on change. */
  reservationUid?: In<string>;
  /** RENTAL only. */
  envs?: In<In<{ name: In<string>; value: In<string> }>[]>;
  /** Not for BM. */
  ports?: In<In<PortArgs>[]>;
  /** RENTAL only: container command override. */
  commands?: In<In<string>[]>;
  /** RENTAL only: container arguments. */
  args?: In<In<string>[]>;
  /** RENTAL only: private registry credentials (secret). */
  registryAuth?: In<RegistryAuthArgs>;
  /** SSH key UIDs; BM requires at least one. */
  sshKeys?: In<In<string>[]>;
  /** RENTAL only. */
  volumes?: In<In<VolumeMountArgs>[]>;
  /** VM only, required: the password (secret, min 4 characters). Replaces on change. */
  vmConfig?: In<{ password: In<string> }>;
  /** BM only: RFC 1123 hostname, defaults to the name. Replaces on change. */
  bmConfig?: In<{ hostname?: In<string> }>;
  projectId?: In<string>;
  /** Feature switches: "reserved-gpu", "persistent-workload". Not for BM. */
  experiments?: In<Record<string, In<boolean>>>;
  /** false: register only, do not deploy (default true). Can later change to true. */
  deploy?: In<boolean>;
  /** RENTAL only: true suspends the workload, false deploys it again. */
  suspended?: In<boolean>;
  /** How long create and update wait for running (default 600 s). */
  readyTimeoutSec?: In<number>;
}

/** Everything a lookup (`get`) reads back: the inputs and the computed outputs. */
const PROPERTIES = [...WORKLOAD_INPUTS, ...RESOURCE_OUTPUTS.Workload];

/** A RENTAL container, VM or BM server on the Compute Workload Service. */
export class Workload extends CwsResource {
  declare readonly uid: pulumi.Output<string>;
  declare readonly type: pulumi.Output<"RENTAL" | "VM" | "BM">;
  declare readonly name: pulumi.Output<string>;
  declare readonly image: pulumi.Output<string>;
  declare readonly resourceName: pulumi.Output<string>;
  /** registered, provisioning, running, error, suspended. */
  declare readonly status: pulumi.Output<string>;
  declare readonly statusMessage: pulumi.Output<string>;
  declare readonly urls: pulumi.Output<{ port: number; url: string }[]>;
  declare readonly publicIp: pulumi.Output<string | undefined>;
  declare readonly sshPort: pulumi.Output<number | undefined>;
  declare readonly readyReplicas: pulumi.Output<number>;
  declare readonly totalReplicas: pulumi.Output<number>;
  /** USD per hour. */
  declare readonly costPerHour: pulumi.Output<number>;
  /** Changes on every redeploy. */
  declare readonly revision: pulumi.Output<string>;
  declare readonly inventory: pulumi.Output<{
    name: string;
    displayName: string;
    gpuType: string | null;
    gpuCount: number;
    vcpu: number;
    memory: number;
    diskSizeMib: number;
    networkMode: string;
  }>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;

  constructor(name: string, args: WorkloadArgs, opts?: pulumi.CustomResourceOptions) {
    super("Workload", name, args, PROPERTIES, RESOURCE_SECRETS.Workload, opts);
  }

  /** Looks up an existing workload by UID (read-only; not managed by this stack). */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Workload {
    return new Workload(name, undefined as unknown as WorkloadArgs, { ...opts, id: uid });
  }
}
