import { readFileSync } from "node:fs";
import { z } from "zod";
import { BmImage, Region, VmImage, WorkloadType } from "../api/index.ts";

/**
 * Reference data the server starts from: orgs and their tokens and credits, regions,
 * inventory, images, reservations, platform sandbox templates and public workload templates.
 * A JSON file of the same shape replaces it (`cws serve --seed FILE`).
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

const GPU_SMALL = { gpu_type: "NVIDIA L4", gpu_count: 1, network_mode: "proxied" };

export const DEFAULT_SEED: Seed = {
  orgs: [
    { slug: "demo", tokens: ["demo-token"], credits: 1000 },
    { slug: "other", tokens: ["other-token"], credits: 1000 },
  ],
  regions: [
    { uid: "us-east-1", name: "US East (Virginia)", active: true },
    { uid: "eu-west-1", name: "EU West (Ireland)", active: true },
    { uid: "ap-south-1", name: "Asia Pacific (Mumbai)", active: false },
  ],
  inventory: [
    {
      name: "gpu-rental-small",
      type: "rental",
      display_name: "1x L4, 8 vCPU, 32 GiB",
      ...GPU_SMALL,
      vcpu: 8,
      memory: 32768,
      disk_size_mib: 102400,
      cost_per_hour: 0.8,
      capacity: 100,
    },
    {
      name: "gpu-rental-medium",
      type: "rental",
      display_name: "2x L4, 16 vCPU, 64 GiB",
      gpu_type: "NVIDIA L4",
      gpu_count: 2,
      vcpu: 16,
      memory: 65536,
      disk_size_mib: 204800,
      network_mode: "proxied",
      cost_per_hour: 1.6,
      capacity: 50,
    },
    {
      name: "gpu-rental-large",
      type: "rental",
      display_name: "8x H100, 96 vCPU, 1 TiB",
      gpu_type: "NVIDIA H100",
      gpu_count: 8,
      vcpu: 96,
      memory: 1048576,
      disk_size_mib: 2097152,
      network_mode: "proxied",
      cost_per_hour: 24,
      capacity: 1,
    },
    {
      name: "cpu-rental-small",
      type: "rental",
      display_name: "2 vCPU, 4 GiB",
      gpu_type: null,
      gpu_count: 0,
      vcpu: 2,
      memory: 4096,
      disk_size_mib: 20480,
      network_mode: "proxied",
      cost_per_hour: 0.05,
      capacity: 200,
    },
    {
      name: "vm-standard",
      type: "vm",
      display_name: "VM 4 vCPU, 16 GiB",
      gpu_type: null,
      gpu_count: 0,
      vcpu: 4,
      memory: 16384,
      disk_size_mib: 81920,
      network_mode: "public",
      cost_per_hour: 0.2,
      capacity: 50,
    },
    {
      name: "vm-gpu",
      type: "vm",
      display_name: "VM 1x A10, 12 vCPU, 48 GiB",
      gpu_type: "NVIDIA A10",
      gpu_count: 1,
      vcpu: 12,
      memory: 49152,
      disk_size_mib: 204800,
      network_mode: "public",
      cost_per_hour: 1.1,
      capacity: 10,
    },
    {
      name: "bm-h100-8x",
      type: "bm",
      display_name: "Bare metal 8x H100",
      gpu_type: "NVIDIA H100",
      gpu_count: 8,
      vcpu: 192,
      memory: 2097152,
      disk_size_mib: 30720000,
      network_mode: "public",
      cost_per_hour: 32,
      capacity: 2,
      region: "us-east-1",
    },
    {
      name: "sandbox-small",
      type: "sandbox",
      display_name: "Sandbox 2 vCPU, 4 GiB",
      gpu_type: null,
      gpu_count: 0,
      vcpu: 2,
      memory: 4096,
      disk_size_mib: 10240,
      network_mode: "isolated",
      cost_per_hour: 0.04,
      capacity: 50,
    },
  ],
  vm_images: [
    {
      name: "ubuntu-22.04",
      display_name: "Ubuntu 22.04 LTS",
      description: "Ubuntu Server 22.04 LTS (Jammy Jellyfish)",
    },
    {
      name: "ubuntu-24.04",
      display_name: "Ubuntu 24.04 LTS",
      description: "Ubuntu Server 24.04 LTS (Noble Numbat)",
    },
    { name: "debian-12", display_name: "Debian 12", description: "Debian 12 (Bookworm)" },
  ],
  bm_images: [
    { name: "ubuntu-22.04-cuda", display_name: "Ubuntu 22.04 + CUDA 12", os_family: "linux" },
    { name: "rocky-9", display_name: "Rocky Linux 9", os_family: "linux" },
  ],
  reservations: [
    {
      uid: "res-bm-use1",
      org: "demo",
      type: "BM",
      resource_name: "bm-h100-8x",
      region: "us-east-1",
      status: "ACTIVE",
    },
    {
      uid: "res-bm-euw1",
      org: "demo",
      type: "BM",
      resource_name: "bm-h100-8x",
      region: "eu-west-1",
      status: "ACTIVE",
    },
    { uid: "res-vm-1", org: "demo", type: "VM", resource_name: "vm-standard", status: "ACTIVE" },
    { uid: "res-expired", org: "demo", type: "VM", resource_name: "vm-standard", status: "EXPIRED" },
    {
      uid: "res-other-bm",
      org: "other",
      type: "BM",
      resource_name: "bm-h100-8x",
      region: "us-east-1",
      status: "ACTIVE",
    },
  ],
  sandbox_templates: [
    {
      uid: "tpl-ubuntu-headless",
      name: "ubuntu-headless",
      display_name: "Ubuntu (headless)",
      description: "Linux environment with a shell, no desktop",
      resource_name: "sandbox-small",
      cost_per_hour: 0.04,
      frozen_cost_per_hour: 0.004,
      desktop: false,
    },
    {
      uid: "tpl-ubuntu-desktop",
      name: "ubuntu-desktop",
      display_name: "Ubuntu (desktop)",
      description: "Linux environment with a browser-reachable desktop",
      resource_name: "sandbox-small",
      cost_per_hour: 0.06,
      frozen_cost_per_hour: 0.006,
      desktop: true,
    },
  ],
  templates: [
    {
      uid: "wtpl-nginx-public",
      name: "nginx-web",
      description: "A public nginx web server on a small rental",
      type: "RENTAL",
      manifest: {
        type: "RENTAL",
        name: "web",
        image: "nginx:1.27",
        resource_name: "gpu-rental-small",
        ports: [{ port: 8080 }],
      },
    },
  ],
  volume_cost_per_gib_hour: 0.00014,
};

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

/** Writes the seed's documents into an empty store (platform templates; credits come from the seed). */
export function applySeed(store: import("./store.ts").Store, seed: Seed, now: string): void {
  store.transaction(() => {
    store.setSeed(seed);
    for (const t of seed.sandbox_templates) {
      store.sandboxTemplates.put({
        uid: t.uid,
        org: null,
        name: t.name,
        display_name: t.display_name,
        description: t.description,
        kind: "FRESH",
        status: t.status ?? "READY",
        resource_name: t.resource_name,
        cost_per_hour: t.cost_per_hour,
        frozen_cost_per_hour: t.frozen_cost_per_hour,
        desktop: t.desktop,
        created_at: now,
        updated_at: now,
      });
    }
    for (const t of seed.templates) {
      store.templates.put({ ...t, org: null, visibility: "PUBLIC", created_at: now, updated_at: now });
    }
  });
}
