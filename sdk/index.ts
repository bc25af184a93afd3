export {
  Workload,
  type WorkloadArgs,
  type PortArgs,
  type VolumeMountArgs,
  type RegistryAuthArgs,
} from "./workload.ts";
export { Sandbox, type SandboxArgs } from "./sandbox.ts";
export { SandboxTemplate, type SandboxTemplateArgs } from "./sandbox-template.ts";
export { Volume, type VolumeArgs } from "./volume.ts";
export { SshKey, type SshKeyArgs } from "./ssh-key.ts";
export { WorkloadTemplate, type WorkloadTemplateArgs, type WorkloadManifest } from "./workload-template.ts";
