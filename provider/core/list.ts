/**
 * A list resource: how the objects of one kind are found in an org, with the filters the API's
 * list route has (a workload's type, status, name and project; a volume's workload). Declared once
 * beside its kind (provider/resources/<kind>/list.ts) and read by every front end that lists:
 * `terraform query` (the OpenTofu front end's ListResource) and `cws adopt` (its inventory of an
 * org), so both find the same objects. Listing reads no object in full: a front end that needs an
 * object's inputs reads it through its resource module, as an import does.
 */
import { z } from "zod";
import type { CwsClient } from "../../client/index.ts";
import type { CheckFailure, Props } from "./types.ts";

/** A filter of a list: its type (the API's own query field) and what it selects. */
export interface ListFilter {
  type: z.ZodType;
  description: string;
}

/** An object as listed: enough to identify it, name it and order it. */
export interface Listed {
  /** The resource type name (`Workload`, `SshKey`). */
  kind: string;
  uid: string;
  /** Its name on the service. */
  name: string;
  /** When it was made (empty where the list route does not say: workload templates). */
  createdAt: string;
  /** What a person reading a list should see beside the name: its type, status. */
  summary?: string;
}

export interface ListDefinition {
  /** The resource type it lists (a Definition's name). */
  kind: string;
  /** What the list finds, and what it leaves out. */
  description: string;
  /** The filters, by property name (camelCase, as inputs are named). */
  filters: Record<string, ListFilter>;
  /**
   * The org's objects of the kind that `filters` select (checked by listFailures), page by page,
   * in the service's order. Only objects that can be managed: none the service has deleted, none
   * of the platform's or visible to every org.
   */
  list(client: CwsClient, filters: Props, signal?: AbortSignal): AsyncIterable<Listed>;
}

/** What is wrong with the filters given to `def` (unknown filters, values the API refuses). */
export function listFailures(def: ListDefinition, filters: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [k, v] of Object.entries(filters)) {
    if (v === undefined || v === null) continue;
    const f = def.filters[k];
    if (!f) {
      failures.push({
        property: k,
        reason: `${k} is not a filter of this list: ${Object.keys(def.filters).join(", ") || "it has none"}`,
      });
      continue;
    }
    const r = f.type.safeParse(v);
    if (!r.success) failures.push({ property: k, reason: r.error.issues[0]?.message ?? `${k} is not valid` });
  }
  return failures;
}

/** A filter that takes one of `values` (an enum of the contract), its error naming them. */
export function oneOf(name: string, values: readonly [string, ...string[]], description: string): ListFilter {
  return { type: z.enum(values, { error: `${name} must be one of ${values.join(", ")}` }), description };
}

/** A filter that takes a non-empty string. */
export function text(name: string, description: string): ListFilter {
  return { type: z.string().min(1, `${name} must not be empty`), description };
}
