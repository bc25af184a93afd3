import { z } from "zod";
import { Timestamp, page, listPageFields, nameField, timestampFields } from "./common.ts";

export const VolumeCreate = z.strictObject({
  ...nameField,
  size_in_mb: z.number().int("size_in_mb must be an integer").min(1, "size_in_mb must be at least 1"),
  resource_name: z.string().min(1, "resource_name is required"),
});
export type VolumeCreate = z.infer<typeof VolumeCreate>;

export const VolumePatch = z.strictObject(nameField);
export type VolumePatch = z.infer<typeof VolumePatch>;

export const VolumeStateSummary = z.object({
  status: z.string(),
  message: z.string(),
  updated_at: Timestamp,
});
export const VolumeCreated = z.object({ uid: z.string(), state: VolumeStateSummary });
export type VolumeCreated = z.infer<typeof VolumeCreated>;

/** Volume (spec 2.8). */
export const Volume = z.object({
  uid: z.string(),
  name: z.string(),
  size: z.number().int(),
  resource_name: z.string(),
  state: VolumeStateSummary,
  cost_per_hour: z.number(),
  mount_path: z.string().optional(),
  workload_uid: z.string().optional(),
  pvc_name: z.string(),
  last_backup_at: z.string().optional(),
  deleted_by: z.enum(["NEW_PVC", "USER"]).optional(),
  ...timestampFields,
});
export type Volume = z.infer<typeof Volume>;
export const VolumeList = page(Volume);

export const VolumeState = z.object({
  uid: z.string(),
  status: z.string(),
  message: z.string(),
  updated_at: Timestamp,
});
export type VolumeState = z.infer<typeof VolumeState>;

export const VolumeEvent = z.object({
  volume_uid: z.string(),
  cost_per_second: z.number().int(),
  resource_name: z.string(),
  event_type: z.string(),
  namespace: z.string(),
  pvc_name: z.string(),
  storage_class: z.string(),
  requested_size: z.string(),
  old_status: z.string().nullable(),
  new_status: z.string().nullable(),
  reason: z.string().nullable(),
  k8s_resource_version: z.string(),
  billing_status: z.string(),
  billing_processed_at: z.string().nullable(),
  created_at: Timestamp,
});
export type VolumeEvent = z.infer<typeof VolumeEvent>;
export const VolumeEventList = page(VolumeEvent);

export const VolumeListQuery = z.strictObject({
  ...listPageFields,
  workload_uid: z.string().optional(),
});
export type VolumeListQuery = z.infer<typeof VolumeListQuery>;
