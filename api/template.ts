import { z } from "zod";
import { Timestamp, page, listPageFields, nameField } from "./common.ts";
import { WorkloadType } from "./workload.ts";
import { byType, WORKLOAD_CREATE_BODIES, WorkloadCreateByType } from "./workload-bodies.ts";

/** Reusable workload template bodies (spec 2.7, 4.4). manifest is checked as a create body. */
export const TemplateCreate = z.strictObject({
  ...nameField,
  description: z.string().optional(),
  type: WorkloadType,
  manifest: z.record(z.string(), z.unknown()),
  visibility: z.enum(["PUBLIC", "PRIVATE"]).optional(),
});
export type TemplateCreate = z.infer<typeof TemplateCreate>;

/** A template of one type: its manifest is a create body of that type (manifest.type = type). */
const templateOf = (type: WorkloadType) =>
  z.strictObject({ ...TemplateCreate.shape, type: z.literal(type), manifest: WORKLOAD_CREATE_BODIES[type] });
export const RentalTemplateCreate = templateOf("RENTAL");
export const VmTemplateCreate = templateOf("VM");
export const BmTemplateCreate = templateOf("BM");
export const SandboxTemplateCreate = templateOf("SANDBOX");
/** The template create body as the document states it: one of the four, by `type`. */
export const TemplateCreateByType = byType(
  {
    RENTAL: RentalTemplateCreate,
    VM: VmTemplateCreate,
    BM: BmTemplateCreate,
    SANDBOX: SandboxTemplateCreate,
  },
  "TemplateCreate",
);

export const TemplatePatch = z.strictObject({
  name: z.string().min(1, "name must not be empty").max(64, "name must be at most 64 characters").optional(),
  description: z.string().optional(),
  manifest: z
    .record(z.string(), z.unknown())
    .meta({
      description:
        "a create body of the template's type (WorkloadCreate); another is 400 TEMPLATE_MANIFEST_INVALID",
    })
    .optional(),
});
export type TemplatePatch = z.infer<typeof TemplatePatch>;

/**
 * The PATCH body as the document states it: a new manifest is a workload create body (one of the
 * four, by `type`), as the server checks it (server/templates/workload-templates.ts). That its
 * type is the stored template's is a rule of the stored object, which the path does not say.
 */
export const TemplatePatchDocumented = TemplatePatch.extend({
  manifest: WorkloadCreateByType.optional().meta({
    description:
      "a create body of the template's type (its `type` equal to the template's); another is 400 TEMPLATE_MANIFEST_INVALID",
  }),
});

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
