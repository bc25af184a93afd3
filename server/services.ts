import { AdminService } from "./admin/service.ts";
import { WorkloadExec } from "./workloads/exec-simulator.ts";
import type { Faults } from "./http/faults.ts";
import type { RateLimits } from "./http/rate-limit.ts";
import type { Lifecycle } from "./workloads/lifecycle.ts";
import type { ServiceDeps } from "./common/service-deps.ts";
import { Cursors } from "./common/cursors.ts";
import type { Store } from "./store/store.ts";
import { SshKeyService } from "./ssh-keys/service.ts";
import { SandboxTemplateService } from "./templates/sandbox-templates.ts";
import { WorkloadTemplateService } from "./templates/workload-templates.ts";
import { VolumeService } from "./volumes/service.ts";
import { WorkloadAttachments } from "./workloads/attachments.ts";
import { WorkloadChecks } from "./workloads/checks.ts";
import { WorkloadLogs } from "./workloads/logs.ts";
import { WorkloadService } from "./workloads/service.ts";

/**
 * The services of the server, one per resource: each owns its resource's rules and store
 * transactions. Routes reach them as `ctx.services`; the state machine they share is
 * `ctx.lifecycle`. The sandbox service is the sandbox module's (sandbox/service.ts).
 */
export interface Services {
  workloads: WorkloadService;
  attachments: WorkloadAttachments;
  logs: WorkloadLogs;
  exec: WorkloadExec;
  volumes: VolumeService;
  sshKeys: SshKeyService;
  workloadTemplates: WorkloadTemplateService;
  sandboxTemplates: SandboxTemplateService;
  admin: AdminService;
}

/**
 * Builds the services over one store: each gets the store, the list cursors and the time
 * (ServiceDeps), and the collaborators it calls, by construction.
 */
export function createServices(
  store: Store,
  lc: Lifecycle,
  faults: Faults,
  rateLimits: RateLimits,
): Services {
  const checks = new WorkloadChecks(store);
  const deps: ServiceDeps = { store, cursors: new Cursors(store), now: () => lc.now() };
  return {
    workloads: new WorkloadService(deps, lc, checks),
    attachments: new WorkloadAttachments(store, lc, checks),
    logs: new WorkloadLogs(store, lc),
    exec: new WorkloadExec(lc),
    volumes: new VolumeService(deps, lc.volumes),
    sshKeys: new SshKeyService(deps),
    workloadTemplates: new WorkloadTemplateService(deps),
    sandboxTemplates: new SandboxTemplateService(deps),
    admin: new AdminService({ store, lc, faults, rateLimits }),
  };
}
