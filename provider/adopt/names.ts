/**
 * The names adopted resources get in generated code, the same for the same org.
 *
 * - Pulumi: the kind, then the object's name in PascalCase (`workloadWeb`, `sshKeyDeploy`,
 *   `sandboxTemplateTeamEnv`). Starting with the kind keeps it a valid identifier in every
 *   language (never a keyword, never a leading digit) and unique across kinds.
 * - OpenTofu: the object's name in snake_case (`cws_workload.web`); the type is part of the
 *   address, so the kind is added only when the name does not start with a letter.
 *
 * Two objects that would get the same name are told apart by a number (`workloadWeb2`,
 * `web_2`), given in the order of compareObjects.
 */
import { camelToSnake } from "../core/wire.ts";
import { compareObjects } from "./graph.ts";
import type { Adopted } from "./inventory.ts";

/** The words of a name: runs of letters and digits. */
const words = (name: string) => name.split(/[^A-Za-z0-9]+/).filter(Boolean);
const upperFirst = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** `web-api` → `WebApi`. */
export const pascal = (name: string) => words(name).map(upperFirst).join("");

/** `SandboxTemplate` → `sandboxTemplate`. */
export const kindWord = (kind: string) => kind.charAt(0).toLowerCase() + kind.slice(1);

/** `SandboxTemplate` → `sandbox_template`. */
export const kindSnake = (kind: string) => camelToSnake(kindWord(kind));

export function pulumiName(o: Pick<Adopted, "kind" | "name">): string {
  return `${kindWord(o.kind)}${pascal(o.name)}`;
}

export function hclName(o: Pick<Adopted, "kind" | "name">): string {
  const snake = words(o.name)
    .map((w) => camelToSnake(w).replace(/^_/, ""))
    .join("_")
    .toLowerCase();
  return /^[a-z]/.test(snake) ? snake : `${kindSnake(o.kind)}${snake ? `_${snake}` : ""}`;
}

/**
 * A unique name per object (by uid): `base` of each, in compareObjects order, with a number
 * added from the second object of the same base on (`sep` before it). `scope` gives the space
 * names must be unique in (OpenTofu: per resource type).
 */
export function uniqueNames(
  objects: Adopted[],
  base: (o: Adopted) => string,
  sep: string,
  scope: (o: Adopted) => string = () => "",
): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const o of [...objects].sort(compareObjects)) {
    const b = base(o);
    let name = b;
    for (let n = 2; taken.has(`${scope(o)}\0${name}`); n++) name = `${b}${sep}${n}`;
    taken.add(`${scope(o)}\0${name}`);
    out.set(o.uid, name);
  }
  return out;
}
