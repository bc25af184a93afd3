/** What a resource's URN names: its type's module and definition, by the token in the URN. */
import { secretsOf } from "../core/definition.ts";
import type { ResourceModule } from "../core/types.ts";
import { DEFINITIONS, RESOURCES } from "../registry.ts";
import { PACKAGE } from "../schema/package-schema.ts";

/** `urn:pulumi:stack::project::[parent$]cws:index:Workload::name` → the module and the name. */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  const token = qualified.slice(qualified.lastIndexOf("$") + 1);
  return { type: token.split(":")[2] ?? token, name: parts.slice(3).join("::") };
}

/** The module of the resource type the URN names. */
export function moduleFor(urn: string): ResourceModule {
  const { type } = parseUrn(urn);
  const m = RESOURCES[type];
  if (!m) throw new Error(`${PACKAGE}: unknown resource type in ${urn}`);
  return m;
}

/** The secret inputs of the resource type the URN names (none for a type it does not know). */
export const secretsOfUrn = (urn: string) => {
  const def = DEFINITIONS[parseUrn(urn).type];
  return def ? secretsOf(def) : [];
};
