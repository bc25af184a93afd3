/**
 * Every resource the provider offers, by type name: each kind's definition run by the one
 * lifecycle with its controller (provider/resources/<kind>/). Front ends take the modules and the
 * definitions from here.
 */
import type { ActionDefinition } from "./core/action.ts";
import type { Definition } from "./core/definition.ts";
import { resource, type Controller } from "./core/lifecycle.ts";
import type { ListDefinition } from "./core/list.ts";
import type { ResourceModule } from "./core/types.ts";
import * as sandboxTemplate from "./resources/sandbox-template/controller.ts";
import * as sandboxTemplateDef from "./resources/sandbox-template/definition.ts";
import { sandboxTemplateList } from "./resources/sandbox-template/list.ts";
import * as sandbox from "./resources/sandbox/controller.ts";
import * as sandboxDef from "./resources/sandbox/definition.ts";
import { sandboxList } from "./resources/sandbox/list.ts";
import * as sshKey from "./resources/ssh-key/controller.ts";
import * as sshKeyDef from "./resources/ssh-key/definition.ts";
import { sshKeyList } from "./resources/ssh-key/list.ts";
import * as volume from "./resources/volume/controller.ts";
import * as volumeDef from "./resources/volume/definition.ts";
import { volumeList } from "./resources/volume/list.ts";
import * as workloadTemplate from "./resources/workload-template/controller.ts";
import * as workloadTemplateDef from "./resources/workload-template/definition.ts";
import { workloadTemplateList } from "./resources/workload-template/list.ts";
import { sandboxWriteFile } from "./resources/sandbox/actions.ts";
import { workloadReboot } from "./resources/workload/actions.ts";
import { workloadExec } from "./resources/workload/actions-exec.ts";
import * as workload from "./resources/workload/controller.ts";
import * as workloadDef from "./resources/workload/definition.ts";
import { workloadList } from "./resources/workload/list.ts";

const KINDS: [Definition, Controller<never>][] = [
  [workloadDef.definition, workload.controller as Controller<never>],
  [sandboxDef.definition, sandbox.controller as Controller<never>],
  [sandboxTemplateDef.definition, sandboxTemplate.controller as Controller<never>],
  [volumeDef.definition, volume.controller as Controller<never>],
  [sshKeyDef.definition, sshKey.controller as Controller<never>],
  [workloadTemplateDef.definition, workloadTemplate.controller as Controller<never>],
];

/** Every resource's definition, by type name. */
export const DEFINITIONS: Record<string, Definition> = Object.fromEntries(KINDS.map(([d]) => [d.name, d]));

/** Every resource's module (definition + controller under the one lifecycle), by type name. */
export const RESOURCES: Record<string, ResourceModule> = Object.fromEntries(
  KINDS.map(([d, c]) => [d.name, resource(d, c)]),
);

export function resourceModule(name: string): ResourceModule {
  const m = RESOURCES[name];
  if (!m) throw new Error(`unknown cws resource type ${name}`);
  return m;
}

/**
 * Every action, by name: what a user triggers rather than declares, each declared beside its kind
 * (provider/resources/<kind>/actions*.ts).
 */
export const ACTIONS: Record<string, ActionDefinition> = Object.fromEntries(
  [workloadReboot, workloadExec, sandboxWriteFile].map((a) => [a.name, a]),
);

/**
 * Every list resource, by the type name it lists: how an org's objects of each kind are found,
 * declared beside the kind (provider/resources/<kind>/list.ts). `terraform query` and `cws adopt`
 * both read an org through these.
 */
export const LISTS: Record<string, ListDefinition> = Object.fromEntries(
  [sshKeyList, volumeList, sandboxList, sandboxTemplateList, workloadList, workloadTemplateList].map((l) => [
    l.kind,
    l,
  ]),
);
