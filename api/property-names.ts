/**
 * The names a Pulumi program uses: every snake_case wire field is the camelCase input or output
 * of the same name (`ssh_keys` is `sshKeys`). Each resource's properties are stated once, in its
 * definition (provider/resources/<kind>/definition.ts); provider/core/wire.ts converts whole
 * values with these names, and the definitions state the few properties named otherwise.
 */
import { WORKLOAD_FIELD_NAMES } from "./workload-fields.ts";

export const camelToSnake = remembered((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
export const snakeToCamel = remembered((k) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));

/**
 * `rename`, its answers kept: the same few names are converted at every call of a provider. The
 * keys of documents (a manifest's) are names too but not bounded, so it keeps at most 4096.
 */
function remembered(rename: (k: string) => string): (k: string) => string {
  const known = new Map<string, string>();
  return (k) => {
    let v = known.get(k);
    if (v === undefined) {
      v = rename(k);
      if (known.size < 4096) known.set(k, v);
    }
    return v;
  };
}

/** The service fields a Workload input stands for (sandbox_config belongs to the Sandbox resource). */
export const WORKLOAD_SERVICE_FIELDS = WORKLOAD_FIELD_NAMES.filter((f) => f !== "sandbox_config");
