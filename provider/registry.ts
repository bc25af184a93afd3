/**
 * Every resource the provider offers, by type name, each under a retry budget ending at its
 * operation's deadline (withBudget). Front ends take the modules from here.
 */
import { withBudget } from "./common.ts";
import type { ResourceModule } from "./resource.ts";
import { sandbox } from "./sandbox.ts";
import { sandboxTemplate } from "./sandbox-template.ts";
import { sshKey } from "./ssh-key.ts";
import { volume } from "./volume.ts";
import { workload } from "./workload.ts";
import { workloadTemplate } from "./workload-template.ts";

export const RESOURCES: Record<string, ResourceModule> = Object.fromEntries(
  [workload, sandbox, sandboxTemplate, volume, sshKey, workloadTemplate].map((m) => [m.name, withBudget(m)]),
);

export function resourceModule(name: string): ResourceModule {
  const m = RESOURCES[name];
  if (!m) throw new Error(`unknown cws resource type ${name}`);
  return m;
}
