import { z } from "zod";
import { LIMITS } from "./limits.ts";
import { Timestamp, page, listPageFields, timestampFields } from "./common.ts";
import { SandboxConfig } from "./workload.ts";

export const DEPLOYMENT_TYPES = ["master", "shadow"] as const;
export const DeploymentType = z.enum(DEPLOYMENT_TYPES);
export type DeploymentType = z.infer<typeof DeploymentType>;

/** A sandbox template display name (publish and PATCH). */
const DisplayName = z
  .string()
  .max(
    LIMITS.templateDisplayNameMax,
    `display_name must be at most ${LIMITS.templateDisplayNameMax} characters`,
  )
  .optional();

export const ForkBody = z.strictObject({
  name: z.string().optional(),
  project_id: z.string().optional(),
  sandbox_config: SandboxConfig.optional(),
});
export type ForkBody = z.infer<typeof ForkBody>;

export const PublishBody = z.strictObject({
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      "name must be 1-64 characters of letters, digits, dots, underscores and hyphens, starting with a letter or digit",
    ),
  display_name: DisplayName,
  description: z.string().optional(),
});
export type PublishBody = z.infer<typeof PublishBody>;

export const ExecBody = z.strictObject({
  cmd: z
    .string()
    .min(1, "cmd is required")
    .refine(
      (s) => Buffer.byteLength(s) <= LIMITS.execCmdMaxBytes,
      `cmd must be at most ${LIMITS.execCmdMaxBytes} bytes`,
    ),
  timeout_sec: z
    .number()
    .int("timeout_sec must be an integer")
    .min(
      LIMITS.execTimeoutMinSec,
      `timeout_sec must be between ${LIMITS.execTimeoutMinSec} and ${LIMITS.execTimeoutMaxSec}`,
    )
    .max(
      LIMITS.execTimeoutMaxSec,
      `timeout_sec must be between ${LIMITS.execTimeoutMinSec} and ${LIMITS.execTimeoutMaxSec}`,
    )
    .optional(),
});
export type ExecBody = z.infer<typeof ExecBody>;
export const ExecResult = z.object({
  stdout: z.string(),
  stderr: z.string(),
  code: z.number().int(),
  timed_out: z.boolean(),
});
export type ExecResult = z.infer<typeof ExecResult>;

export const FileQuery = z.strictObject({
  path: z.string().startsWith("/", "path must be an absolute guest path"),
});
export const FileBody = z.strictObject({
  path: z.string().startsWith("/", "path must be an absolute guest path"),
  content_b64: z.base64("content_b64 must be base64"),
});
export type FileBody = z.infer<typeof FileBody>;
export const FileContent = z.object({ path: z.string(), content_b64: z.string() });
export type FileContent = z.infer<typeof FileContent>;

/**
 * An access ticket's lifetime: its range (spec 4.2) is checked by the route
 * (WORKLOAD_ACCESS_TICKET_TTL_INVALID, with its own words); the document states it.
 */
export const TicketBody = z.strictObject({
  ttl_sec: z
    .number()
    .int()
    .meta({
      minimum: LIMITS.ticketTtlMinSec,
      maximum: LIMITS.ticketTtlMaxSec,
      description: `seconds the ticket stays valid (default ${LIMITS.ticketTtlDefaultSec})`,
    })
    .optional(),
});
export type TicketBody = z.infer<typeof TicketBody>;
export const Ticket = z.object({ ticket: z.string(), expires_at: Timestamp });
export type Ticket = z.infer<typeof Ticket>;

/**
 * A terminal's size: its range is checked by the route (WORKLOAD_TERMINAL_SIZE_INVALID, with
 * its own words); the document states it.
 */
const terminalSize = () =>
  z.number().int().meta({ minimum: LIMITS.terminalSizeMin, maximum: LIMITS.terminalSizeMax }).optional();
export const TerminalCreate = z.strictObject({ cols: terminalSize(), rows: terminalSize() });
export type TerminalCreate = z.infer<typeof TerminalCreate>;
export const TerminalSession = z.object({
  id: z.string(),
  pid: z.number().int(),
  started_at: Timestamp,
  exited: z.boolean(),
  exit_code: z.number().int().optional(),
});
export type TerminalSession = z.infer<typeof TerminalSession>;
export const TerminalSessionList = z.array(TerminalSession);
export const TERMINAL_ID = /^[A-Za-z0-9._-]{1,64}$/;

export const Desktop = z.union([
  z.object({
    available: z.literal(true),
    port: z.number().int(),
    listening: z.boolean(),
    ws_url: z.string(),
  }),
  z.object({ available: z.literal(false) }),
]);
export type Desktop = z.infer<typeof Desktop>;

export const SANDBOX_TEMPLATE_KINDS = ["FRESH", "USER"] as const;
export const SANDBOX_TEMPLATE_STATUSES = ["PENDING", "READY", "FAILED"] as const;

/** Sandbox template (spec 2.6). */
export const SandboxTemplate = z.object({
  uid: z.string(),
  name: z.string(),
  display_name: z.string(),
  description: z.string(),
  kind: z.enum(SANDBOX_TEMPLATE_KINDS),
  status: z.enum(SANDBOX_TEMPLATE_STATUSES),
  resource_name: z.string(),
  cost_per_hour: z.number(),
  frozen_cost_per_hour: z.number(),
  ...timestampFields,
});
export type SandboxTemplate = z.infer<typeof SandboxTemplate>;
export const SandboxTemplateList = page(SandboxTemplate);

export const SandboxTemplateQuery = z.strictObject({
  ...listPageFields,
  kind: z.enum(SANDBOX_TEMPLATE_KINDS).optional(),
  status: z.enum(SANDBOX_TEMPLATE_STATUSES).optional(),
});
export type SandboxTemplateQuery = z.infer<typeof SandboxTemplateQuery>;

export const SandboxTemplatePatch = z
  .strictObject({
    display_name: DisplayName,
    description: z.string().optional(),
  })
  .refine(
    (b) => b.display_name !== undefined || b.description !== undefined,
    "at least one of display_name, description is required",
  )
  // The refinement above, as the document states it: the object has no other fields.
  .meta({ minProperties: 1 });
export type SandboxTemplatePatch = z.infer<typeof SandboxTemplatePatch>;
