import { z } from "zod";
import * as api from "../index.ts";

/** Answers of the reference server's own routes (admin surface, the OpenAPI document): compositions of contract types, named so in the document. */
export const SERVER_SCHEMAS = {
  AdminResources: z.object({
    workloads: z.array(api.WorkloadOperation),
    volumes: z.array(api.Volume),
    ssh_keys: z.array(api.SshKey),
    templates: z.array(api.WorkloadTemplate),
    sandbox_templates: z.array(api.SandboxTemplate),
  }),
  AdminReset: z.object({ status: z.literal("reset") }),
  FaultCreated: z.object({ id: z.string() }),
  FaultList: z.object({ items: z.array(api.Fault) }),
  ProvisioningRule: api.ProvisioningRuleCreate.extend({ id: z.string() }),
  ProvisioningRuleList: z.object({
    items: z.array(api.ProvisioningRuleCreate.extend({ id: z.string() })),
  }),
  Credits: z.object({ org: z.string(), balance: z.number() }),
  OrgList: z.object({
    items: z.array(
      z.object({
        org: z.string(),
        credits: z.number(),
        rate_limit: api.RateLimit.nullable(),
        rate_limited: z.number().int(),
      }),
    ),
  }),
  OpenApiDocument: z.record(z.string(), z.unknown()),
} as const;
