/** Volume: persistent storage mounted on RENTAL workloads. Update: name. Replace: sizeInMb, resourceName. */
import { z } from "zod";
import { NAME_RULES, Volume, VolumeCreate } from "../../../api/index.ts";
import {
  ADOPT_UID,
  TIMESTAMPS,
  bodyInputsOf,
  nameInput,
  resourceNameInput,
  stateOutputs,
  uidOutput,
  type Definition,
} from "../../core/definition.ts";
import { pick } from "../../core/values.ts";
import { contractFailures } from "../../core/wire.ts";

export const definition: Definition = {
  name: "Volume",
  what: "volume",
  description: "A persistent volume, mounted on RENTAL workloads through their `volumes` input.",
  inputs: {
    name: nameInput("volume", NAME_RULES.object),
    // The create body takes size_in_mb; the record reports it as `size` (also an output).
    sizeInMb: {
      type: z.number().int(),
      description: "Size in megabytes.",
      change: "replace",
      required: true,
      wire: { record: "size" },
    },
    resourceName: resourceNameInput("The inventory resource it is provisioned on, e.g. gpu-rental-small.", {
      change: "replace",
      required: true,
    }),
    adoptUid: ADOPT_UID,
  },
  outputs: {
    uid: uidOutput("volume"),
    size: { type: Volume.shape.size, description: "Size in megabytes, as the service reports it." },
    ...stateOutputs(z.string()),
    costPerHour: { type: Volume.shape.cost_per_hour, description: "USD per hour." },
    workloadUid: { type: z.string(), description: "The workload it is mounted on, if any." },
    mountPath: { type: z.string(), description: "Where it is mounted, if it is." },
    pvcName: { type: Volume.shape.pvc_name, description: "The service's claim name." },
    ...TIMESTAMPS,
  },
  validate: (_olds, news) => contractFailures(VolumeCreate, pick(news, bodyInputsOf(definition))),
  notes: `A volume is provisioned when a RENTAL workload that mounts it is deployed. A volume is mounted on one workload at a time: replacing a workload that mounts volumes deletes the old workload first.`,
  example: { name: "data", sizeInMb: 1024, resourceName: "gpu-rental-small" },
};
