import { z } from "zod";

/**
 * Admin surface of the reference server (outside the versioned API, under /admin). Used by
 * tests and local tooling to inject faults, steer provisioning outcomes and inspect state.
 */

/** POST /admin/faults: the next `count` requests matching `method` and `path` fail or slow down. */
export const FaultCreate = z
  .strictObject({
    method: z.string().min(1).optional(),
    /** Regular expression tested against the path after the version prefix, e.g. "^/orgs/demo/workloads$". */
    path: z
      .string()
      .min(1, "path is required")
      .refine((p) => {
        try {
          new RegExp(p);
          return true;
        } catch {
          return false;
        }
      }, "path must be a valid regular expression"),
    count: z.number().int("count must be an integer").min(1, "count must be at least 1"),
    status: z
      .number()
      .int()
      .min(400, "status must be between 400 and 599")
      .max(599, "status must be between 400 and 599")
      .optional(),
    retry_after_sec: z.number().int().min(0, "retry_after_sec must be non-negative").optional(),
    latency_ms: z
      .number()
      .int()
      .min(0, "latency_ms must be non-negative")
      .max(60_000, "latency_ms must be at most 60000")
      .optional(),
    reason: z.string().min(1).optional(),
  })
  .refine(
    (f) => f.status !== undefined || f.latency_ms !== undefined,
    "one of status, latency_ms is required",
  );
export type FaultCreate = z.infer<typeof FaultCreate>;

export const Fault = z.object({
  id: z.string(),
  method: z.string().optional(),
  path: z.string(),
  remaining: z.number().int(),
  status: z.number().int().optional(),
  retry_after_sec: z.number().int().optional(),
  latency_ms: z.number().int().optional(),
  reason: z.string().optional(),
});
export type Fault = z.infer<typeof Fault>;

/** POST /admin/orgs/{org}/provisioning: how deploys of matching workloads end. */
export const ProvisioningRuleCreate = z.strictObject({
  workload_uid: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  outcome: z.enum(["running", "error"]),
  delay_ms: z.number().int().min(0, "delay_ms must be non-negative").optional(),
  message: z.string().optional(),
});
export type ProvisioningRuleCreate = z.infer<typeof ProvisioningRuleCreate>;

/** POST /admin/orgs/{org}/credits. */
export const CreditsBody = z.strictObject({ balance: z.number().min(0, "balance must be non-negative") });
export type CreditsBody = z.infer<typeof CreditsBody>;
