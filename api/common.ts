import { z } from "zod";
import { LIMITS } from "./limits.ts";

/** Error body of every failed request (spec section 7). */
export const ErrorBody = z.object({ error: z.string(), reason: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const Timestamp = z.string();
export const Uid = z.string().min(1);
/** When a record was created and last changed. */
export const timestampFields = { created_at: Timestamp, updated_at: Timestamp };

/** A list page: items plus the cursor of the next page (empty or null at the end). */
export function page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable().optional() });
}
export type Page<T> = { items: T[]; next_cursor?: string | null };

/** limit and cursor of every list route. */
export const PageQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int("limit must be an integer")
    .min(1, "limit must be at least 1")
    .max(LIMITS.maxPageSize, `limit must be at most ${LIMITS.maxPageSize}`)
    .optional(),
  cursor: z.string().min(1, "cursor must not be empty").optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** limit and cursor, for the list routes that filter (workloads, volumes, templates, sandbox templates). */
export const listPageFields = PageQuery.shape;

/** The name of a volume, SSH key or workload template, as a client gives it. */
export const nameField = {
  name: z
    .string()
    .min(1, "name is required")
    .max(LIMITS.objectNameMax, `name must be at most ${LIMITS.objectNameMax} characters`),
};

/** Lowercase slug: letters, digits and hyphens. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
