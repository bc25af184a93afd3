import { z } from "zod";

/**
 * Admin surface of the reference server (outside the versioned API, under /admin). Used by
 * tests and local tooling to inject faults, steer provisioning outcomes and inspect state.
 */

/** Longest fault path regex accepted (a bound on the work each API request spends matching). */
export const FAULT_PATH_MAX = 256;

/** The regex of a fault path, or the reason it is refused. */
export function faultPathRegex(path: string): RegExp | string {
  if (path.length > FAULT_PATH_MAX) return `path must be at most ${FAULT_PATH_MAX} characters`;
  try {
    return new RegExp(path);
  } catch {
    return "path must be a valid regular expression";
  }
}

/**
 * POST /admin/faults: matching API requests fail, are cut, or slow down.
 *
 * - `count`: how many matching requests the fault takes (required unless `rate` is given).
 * - `rate`: random mode; each matching request is taken with this probability (0-1]. Without
 *   `count` the fault stays until cleared. A request a rate fault lets pass may be taken by the
 *   next matching fault.
 * - `when`: `before` (default) answers without carrying the request out; `after` carries it out
 *   and then replaces its response with the failure, as a gateway that lost the answer would.
 * - `status` answers with that error; `drop: true` cuts the connection instead of answering.
 */
export const FaultCreate = z
  .strictObject({
    method: z.string().min(1).optional(),
    /** Regular expression tested against the path after the version prefix, e.g. "^/orgs/demo/workloads$". */
    path: z
      .string()
      .min(1, "path is required")
      .superRefine((p, c) => {
        const r = faultPathRegex(p);
        if (typeof r === "string") c.addIssue({ code: "custom", message: r });
      }),
    count: z.number().int("count must be an integer").min(1, "count must be at least 1").optional(),
    rate: z.number().gt(0, "rate must be above 0").max(1, "rate must be at most 1").optional(),
    when: z.enum(["before", "after"]).optional(),
    status: z
      .number()
      .int()
      .min(400, "status must be between 400 and 599")
      .max(599, "status must be between 400 and 599")
      .optional(),
    drop: z.boolean().optional(),
    retry_after_sec: z.number().int().min(0, "retry_after_sec must be non-negative").optional(),
    latency_ms: z
      .number()
      .int()
      .min(0, "latency_ms must be non-negative")
      .max(60_000, "latency_ms must be at most 60000")
      .optional(),
    reason: z.string().min(1).max(64).optional(),
  })
  .refine(
    (f) => f.status !== undefined || f.latency_ms !== undefined || f.drop === true,
    "one of status, latency_ms, drop is required",
  )
  .refine((f) => f.count !== undefined || f.rate !== undefined, "one of count, rate is required")
  .refine((f) => !(f.drop === true && f.status !== undefined), "give status or drop, not both");
export type FaultCreate = z.infer<typeof FaultCreate>;

export const Fault = z.object({
  id: z.string(),
  method: z.string().optional(),
  path: z.string(),
  /** Uses left; absent for a rate fault without count (it stays until cleared). */
  remaining: z.number().int().optional(),
  rate: z.number().optional(),
  when: z.enum(["before", "after"]),
  status: z.number().int().optional(),
  drop: z.boolean().optional(),
  retry_after_sec: z.number().int().optional(),
  latency_ms: z.number().int().optional(),
  reason: z.string().optional(),
  /** Requests this fault has taken. */
  taken: z.number().int(),
});
export type Fault = z.infer<typeof Fault>;

/**
 * The failures the reference server can stage (server/workloads/staged-failures.ts), each with the
 * events and log lines the service records for it.
 */
export const STAGED_FAILURES = ["image_pull", "exit", "crash_loop", "vm_boot", "never_ready"] as const;

/** POST /admin/orgs/{org}/provisioning: how deploys of matching workloads end. */
export const ProvisioningRuleCreate = z.strictObject({
  workload_uid: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  /** Required unless `failure` is given (a staged failure ends in error, or for never_ready not at all). */
  outcome: z.enum(["running", "error"]).optional(),
  delay_ms: z.number().int().min(0, "delay_ms must be non-negative").optional(),
  message: z.string().optional(),
  failure: z.enum(STAGED_FAILURES).optional(),
  /** exit and crash_loop: the container's exit code (default 1). */
  exit_code: z
    .number()
    .int()
    .min(1, "exit_code must be 1 to 255")
    .max(255, "exit_code must be 1 to 255")
    .optional(),
  /** What the container (a VM: its serial console) prints before it fails. */
  logs: z
    .array(z.string().max(1000, "a log line must be at most 1000 characters"))
    .max(200, "logs must have at most 200 lines")
    .optional(),
  /** crash_loop: how many times the container restarts before the workload is put in error (default 3). */
  restarts: z
    .number()
    .int()
    .min(1, "restarts must be 1 to 10")
    .max(10, "restarts must be 1 to 10")
    .optional(),
});
export type ProvisioningRuleCreate = z.infer<typeof ProvisioningRuleCreate>;

/** POST /admin/orgs/{org}/credits. */
export const CreditsBody = z.strictObject({ balance: z.number().min(0, "balance must be non-negative") });
export type CreditsBody = z.infer<typeof CreditsBody>;

/** Highest request rate and burst a rate limit may name (a bound, not a recommendation). */
export const RATE_LIMIT_MAX = 1_000_000;

/**
 * A per-organization request rate limit of the reference server (a token bucket): `rps` tokens
 * a second, up to `burst` held (default: rps rounded up). The seed's `rate_limit` of an org and
 * the body of PUT /admin/orgs/{org}/rate-limit.
 */
export const RateLimitSetting = z.strictObject({
  rps: z.number().gt(0, "rps must be above 0").max(RATE_LIMIT_MAX, `rps must be at most ${RATE_LIMIT_MAX}`),
  burst: z
    .number()
    .int("burst must be an integer")
    .min(1, "burst must be at least 1")
    .max(RATE_LIMIT_MAX, `burst must be at most ${RATE_LIMIT_MAX}`)
    .optional(),
});
export type RateLimitSetting = z.infer<typeof RateLimitSetting>;

/** PUT /admin/orgs/{org}/rate-limit: a limit, or null to let the org's requests through unlimited. */
export const RateLimitUpdate = RateLimitSetting.nullable();
export type RateLimitUpdate = z.infer<typeof RateLimitUpdate>;

/** A rate limit in force: `rps` tokens a second into a bucket of `burst`. */
export const RateLimit = z.object({ rps: z.number(), burst: z.number().int() });
export type RateLimit = z.infer<typeof RateLimit>;

/**
 * GET /admin/orgs/{org}/rate-limit: the org's limit in force (null: unlimited), where it comes
 * from (`admin`: set at run time; `seed`: the seed's `rate_limit`; `server`: `--rate-limit`, or
 * none), the whole tokens left now, and how many requests it has refused.
 */
export const OrgRateLimit = z.object({
  org: z.string(),
  limit: RateLimit.nullable(),
  source: z.enum(["admin", "seed", "server"]),
  remaining: z.number().int().nullable(),
  rate_limited: z.number().int(),
});
export type OrgRateLimit = z.infer<typeof OrgRateLimit>;

/**
 * PUT /admin/inventory/{resource_name}: how many workloads (of every org) may hold the inventory
 * resource at once from now on, over the seed's `capacity`; `null` gives the seed's back. Units
 * already held are kept: a capacity below them only refuses the next deploys.
 */
export const InventoryCapacityUpdate = z.strictObject({
  capacity: z
    .number()
    .int("capacity must be an integer")
    .min(0, "capacity must be non-negative")
    .max(RATE_LIMIT_MAX, `capacity must be at most ${RATE_LIMIT_MAX}`)
    .nullable(),
});
export type InventoryCapacityUpdate = z.infer<typeof InventoryCapacityUpdate>;

/**
 * One inventory resource as GET /admin/inventory lists it: its capacity in force (null:
 * unlimited), where that comes from (`seed`, or `admin` when set at run time), the units held now
 * and those left.
 */
export const InventoryStock = z.object({
  name: z.string(),
  type: z.enum(["rental", "vm", "bm", "sandbox"]),
  display_name: z.string(),
  /** BM: the one region whose servers make up the capacity. */
  region: z.string().nullable(),
  capacity: z.number().int().nullable(),
  source: z.enum(["seed", "admin"]),
  in_use: z.number().int(),
  /** Units a deploy may still take (null: unlimited). */
  free: z.number().int().nullable(),
});
export type InventoryStock = z.infer<typeof InventoryStock>;

export const InventoryList = z.object({ items: z.array(InventoryStock) });
export type InventoryList = z.infer<typeof InventoryList>;

/** A snapshot's name (`cws snapshot save NAME`, /admin/snapshots/:snapshot). */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SNAPSHOT_NAME_RULE =
  "1-64 letters, digits, dots, underscores or hyphens, starting with a letter or digit";

/** A saved snapshot of the whole server state, as the admin API lists it. */
export const SnapshotInfo = z.object({
  name: z.string(),
  saved_at: z.string().describe("when it was saved (ISO 8601)"),
  format: z.number().int().nullable().describe("the snapshot format it was written in"),
  server_version: z.string().nullable().describe("the version of the server that saved it"),
  objects: z
    .number()
    .int()
    .nullable()
    .describe("documents of every org it holds (workloads, volumes, keys, templates, ...)"),
  bytes: z.number().int().describe("its size as stored"),
});
export type SnapshotInfo = z.infer<typeof SnapshotInfo>;

export const SnapshotList = z.object({ items: z.array(SnapshotInfo) });
export type SnapshotList = z.infer<typeof SnapshotList>;

/** What a restore answers: the snapshot, and how long the swap of the state took. */
export const SnapshotRestored = z.object({
  status: z.literal("restored"),
  snapshot: SnapshotInfo,
  restore_ms: z.number().describe("time the server took to replace its state, in milliseconds"),
});
export type SnapshotRestored = z.infer<typeof SnapshotRestored>;
