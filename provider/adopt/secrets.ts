/**
 * The secrets an adopted object needs that the service never returns (a registry password, a VM
 * password, the same inside a template's manifest): the inputs with write-only sub-fields
 * (`writeOnly` on their definition) that a program creating the object would have to give.
 * Found by the resource's own check run as for a new object, so the rule is the provider's.
 */
import { DEFINITIONS, RESOURCES } from "../registry.ts";
import type { Adopted } from "./inventory.ts";
import { hclName, kindSnake, pascal, pulumiName } from "./names.ts";

export interface MissingSecret {
  object: Adopted;
  /** The input path ("registryAuth.password", "manifest.vmConfig.password"). */
  property: string;
  /** The stack config key a Pulumi program reads it from (`workloadWebRegistryPassword`). */
  configKey: string;
  /** The OpenTofu variable (`workload_web_registry_password`). */
  variable: string;
}

/** The input paths of a kind that hold secrets the service never returns. */
export function secretPaths(kind: string): string[] {
  const def = DEFINITIONS[kind];
  if (!def) return [];
  return Object.entries(def.inputs).flatMap(([k, p]) => (p.writeOnly ?? []).map((f) => `${k}.${f}`));
}

/** `registryAuth.password` → `registry`; `manifest.vmConfig.password` → `vm`: what the secret is of. */
function secretWord(property: string): string {
  const parts = property.split(".");
  const owner = parts[parts.length - 2] ?? parts[0]!;
  return owner.split(/(?=[A-Z])/)[0]!.toLowerCase();
}

/**
 * The secrets `obj` lacks: its inputs checked as a create, the failures on a write-only path.
 * `names` give each object's Pulumi and OpenTofu names (else the plain ones).
 */
export function missingSecrets(obj: Adopted, names: { pulumi?: string; hcl?: string } = {}): MissingSecret[] {
  const paths = new Set(secretPaths(obj.kind));
  if (!paths.size) return [];
  const failures = RESOURCES[obj.kind]!.check({}, obj.inputs).failures;
  const lacking = [...new Set(failures.map((f) => f.property).filter((p) => paths.has(p)))].sort();
  return lacking.map((property) => {
    const word = secretWord(property);
    return {
      object: obj,
      property,
      configKey: `${names.pulumi ?? pulumiName(obj)}${pascal(word)}Password`,
      variable: `${kindSnake(obj.kind)}_${names.hcl ?? hclName(obj)}_${word}_password`,
    };
  });
}
