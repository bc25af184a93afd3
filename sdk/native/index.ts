/**
 * `pulumi-cws/sdk/native`: the resource classes of `pulumi-cws/sdk` on the native plugin
 * (`pulumi-resource-cws` on PATH), plus the explicit provider and the lookups.
 */
import type * as dynamic from "../index.ts";
import { nativeResource } from "./resource.ts";

export type {
  WorkloadArgs,
  PortArgs,
  VolumeMountArgs,
  RegistryAuthArgs,
  SandboxArgs,
  SandboxTemplateArgs,
  VolumeArgs,
  SshKeyArgs,
  WorkloadTemplateArgs,
  WorkloadManifest,
} from "../index.ts";

export const Workload = nativeResource<typeof dynamic.Workload>("Workload");
export type Workload = dynamic.Workload;
export const Sandbox = nativeResource<typeof dynamic.Sandbox>("Sandbox");
export type Sandbox = dynamic.Sandbox;
export const SandboxTemplate = nativeResource<typeof dynamic.SandboxTemplate>("SandboxTemplate");
export type SandboxTemplate = dynamic.SandboxTemplate;
export const Volume = nativeResource<typeof dynamic.Volume>("Volume");
export type Volume = dynamic.Volume;
export const SshKey = nativeResource<typeof dynamic.SshKey>("SshKey");
export type SshKey = dynamic.SshKey;
export const WorkloadTemplate = nativeResource<typeof dynamic.WorkloadTemplate>("WorkloadTemplate");
export type WorkloadTemplate = dynamic.WorkloadTemplate;

export { Provider, type ProviderArgs } from "./provider.ts";
export * from "./functions.ts";
