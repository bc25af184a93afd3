import { readFileSync } from "node:fs";
import { z } from "zod";
import { BmImage, RateLimitSetting, Region, VmImage, WorkloadType } from "../../api/index.ts";

/**
 * The shape of the reference data the server starts from (data.ts holds the default): orgs and
 * their tokens and credits, regions, inventory, images, reservations, platform sandbox templates
 * and public workload templates. A JSON file of the same shape replaces it (`cws serve --seed FILE`).
 */
export const InventoryItem = z.strictObject({
  name: z.string().min(1),
  type: z.enum(["rental", "vm", "bm", "sandbox"]),
  display_name: z.string(),
  gpu_type: z.string().nullable(),
  gpu_count: z.number().int().min(0),
  vcpu: z.number().min(0),
  memory: z.number().min(0),
  disk_size_mib: z.number().int().min(0),
  network_mode: z.string(),
  cost_per_hour: z.number().min(0),
  /** Workloads that can hold this resource at once (all orgs). Omitted: unlimited. */
  capacity: z.number().int().min(0).optional(),
  /** BM only: the one region whose servers make up the capacity. */
  region: z.string().optional(),
});
export type InventoryItem = z.infer<typeof InventoryItem>;

export const SeedSchema = z.strictObject({
  orgs: z.array(
    z.strictObject({
      slug: z.string().min(1),
      tokens: z.array(z.string().min(1)).min(1),
      credits: z.number().min(0),
      /**
       * The org's request rate limit (`{ rps, burst? }`, a token bucket), or null for none even
       * when the server has one (`--rate-limit`); omitted: the server's.
       */
      rate_limit: RateLimitSetting.nullable().optional(),
    }),
  ),
  regions: z.array(Region),
  inventory: z.array(InventoryItem),
  vm_images: z.array(VmImage),
  bm_images: z.array(BmImage),
  reservations: z.array(
    z.strictObject({
      uid: z.string().min(1),
      org: z.string().min(1),
      type: z.enum(["VM", "BM"]),
      resource_name: z.string().min(1),
      region: z.string().optional(),
      status: z.enum(["ACTIVE", "EXPIRED", "CANCELLED"]),
    }),
  ),
  sandbox_templates: z.array(
    z.strictObject({
      uid: z.string().min(1),
      name: z.string().min(1),
      display_name: z.string(),
      description: z.string(),
      resource_name: z.string().min(1),
      cost_per_hour: z.number().min(0),
      frozen_cost_per_hour: z.number().min(0),
      desktop: z.boolean(),
      status: z.enum(["PENDING", "READY", "FAILED"]).optional(),
    }),
  ),
  templates: z.array(
    z.strictObject({
      uid: z.string().min(1),
      name: z.string().min(1),
      description: z.string(),
      type: WorkloadType,
      manifest: z.record(z.string(), z.unknown()),
    }),
  ),
  /** USD per GiB-hour of volume storage. */
  volume_cost_per_gib_hour: z.number().min(0).optional(),
});
export type Seed = z.infer<typeof SeedSchema>;
export type Reservation = Seed["reservations"][number];

/** The inventory item of the seed a resource_name names. */
export function inventoryItem(seed: Pick<Seed, "inventory">, name: string): InventoryItem | undefined {
  return seed.inventory.find((i) => i.name === name);
}

/** Reads and validates a seed file (JSON of the Seed shape). */
export function loadSeedFile(file: string): Seed {
  const raw: unknown = JSON.parse(readFileSync(file, "utf8"));
  const parsed = SeedSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`seed file ${file}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}
