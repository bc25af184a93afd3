/**
 * `cws adopt --format pulumi`: the file `pulumi import --file` takes. Every object with its type
 * token, its name (names.ts) and its uid, listed after the objects it refers to: the engine
 * writes the program in that order, and where an input equals another imported resource's id it
 * writes a reference to that resource (`${volumeData.id}` in YAML) instead of the uid.
 */
import { token } from "../schema/package-schema.ts";
import type { Adopted } from "./inventory.ts";

export interface ImportFile {
  resources: { type: string; name: string; id: string }[];
}

export function importFile(ordered: Adopted[], names: ReadonlyMap<string, string>): ImportFile {
  return {
    resources: ordered.map((o) => ({ type: token(o.kind), name: names.get(o.uid)!, id: o.uid })),
  };
}

export const importFileText = (file: ImportFile) => `${JSON.stringify(file, null, 2)}\n`;
