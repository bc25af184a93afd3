/**
 * The names a Pulumi program uses: every snake_case wire field is the camelCase input or output
 * of the same name (`ssh_keys` is `sshKeys`). Each resource's properties are stated once, in its
 * definition (provider/resources/<kind>/definition.ts); provider/core/wire.ts converts whole
 * values with these names, and the definitions state the few properties named otherwise.
 */
import { WORKLOAD_FIELD_NAMES } from "./workload-fields.ts";

export const camelToSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const snakeToCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The service fields a Workload input stands for (sandbox_config belongs to the Sandbox resource). */
export const WORKLOAD_SERVICE_FIELDS = WORKLOAD_FIELD_NAMES.filter((f) => f !== "sandbox_config");
