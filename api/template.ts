import { z } from "zod";
import { Timestamp, page, listPageFields, nameField } from "./common.ts";
import { WorkloadType } from "./workload.ts";

/** Reusable workload template bodies (spec 2.7, 4.4). manifest is checked as a create body. */
export const TemplateCreate = z.strictObject({
  ...nameField,
  description: z.string().optional(),
  type: WorkloadType,
  manifest: z.record(z.string(), z.unknown()),
  visibility: z.enum(["PUBLIC", "PRIVATE"]).optional(),
});
export type TemplateCreate = z.infer<typeof TemplateCreate>;

export const TemplatePatch = z.strictObject({
  name: z.string().min(1, "name must not be empty").max(64, "name must be at most 64 characters").optional(),
  description: z.string().optional(),
  manifest: z.record(z.string(), z.unknown()).optional(),
});
export type TemplatePatch = z.infer<typeof TemplatePatch>;

export const TemplateCreated = z.object({ uid: z.string() });
export type TemplateCreated = z.infer<typeof TemplateCreated>;

export const WorkloadTemplate = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string(),
  type: WorkloadType,
  manifest: z.record(z.string(), z.unknown()),
  visibility: z.enum(["PUBLIC", "PRIVATE"]),
  created_at: Timestamp.optional(),
  updated_at: Timestamp.optional(),
});
export type WorkloadTemplate = z.infer<typeof WorkloadTemplate>;
export const WorkloadTemplateList = page(WorkloadTemplate);

export const TemplateListQuery = z.strictObject({
  ...listPageFields,
  type: WorkloadType.optional(),
  visibility: z.enum(["PUBLIC", "PRIVATE"]).optional(),
});
export type TemplateListQuery = z.infer<typeof TemplateListQuery>;
