/** What every workload record shows, RENTAL, VM, BM and SANDBOX alike: outputs and where resource_name is. */
import { z } from "zod";
import { Url, WorkloadStateSummary } from "../../../api/index.ts";
import { stateOutputs, type OutputDef } from "../../core/definition.ts";
import { fromStateSummary } from "../../core/wire.ts";

/** The record embeds the whole inventory resource whose name the create body gives. */
export const RESOURCE_NAME_WIRE = { record: "resource.name" } as const;

const state = WorkloadStateSummary.shape;

/** Outputs every workload record has (RENTAL, VM, BM and SANDBOX), from its state summary. */
export const workloadOutputs: Record<string, OutputDef> = {
  ...stateOutputs(
    state.status,
    "The service's status: registered, provisioning, running, error, suspended, frozen.",
  ),
  urls: { type: z.array(Url), description: "Public URLs, one per port.", wire: fromStateSummary("urls") },
  sshPort: { type: z.number().int(), description: "The SSH port.", wire: fromStateSummary("sshPort") },
};
