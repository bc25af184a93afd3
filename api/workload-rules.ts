import type { z } from "zod";
import { LIMITS } from "./limits.ts";
import { NAME_RULES, keepsNameRule } from "./names.ts";
import type { Reason } from "./reasons.ts";
import { SLUG } from "./common.ts";
import { unsupportedFields } from "./workload-fields.ts";
import { WorkloadCreate, type Port, type WorkloadType } from "./workload.ts";

/** One broken rule: the wire field, what the rule says, and its reason code. */
export interface Violation {
  field: string;
  message: string;
  reason: Reason;
}

/** An RFC 1123 hostname of at most 63 characters (bm_config.hostname). */
export const HOSTNAME = /^(?=.{1,63}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
/**
 * Text without whitespace (a RENTAL image reference): no character of JavaScript's `\s`, spelled
 * out so that a JSON Schema pattern means the same in every regular expression dialect.
 */
export const NO_WHITESPACE = /^[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$/;

export function nameViolation(type: WorkloadType, name: string): Violation | undefined {
  const rule = type === "SANDBOX" ? NAME_RULES.sandbox : NAME_RULES.workload;
  if (keepsNameRule(rule, name)) return undefined;
  return { field: "name", reason: "WORKLOAD_NAME_INVALID", message: `name must be ${rule.words}` };
}

/** A region named at `field` that is not a lowercase slug of at most 32 characters (spec 7). */
export function regionViolation(field: string, region: string): Violation | undefined {
  if (region.length <= LIMITS.regionSlugMax && SLUG.test(region)) return undefined;
  return {
    field,
    reason: "WORKLOAD_BM_REGION_INVALID",
    message: `${field} must be a lowercase slug of at most ${LIMITS.regionSlugMax} characters`,
  };
}

export function portViolations(type: WorkloadType, ports: readonly Port[]): Violation[] {
  const out: Violation[] = [];
  let direct = 0;
  ports.forEach((p, i) => {
    const field = `ports[${i}]`;
    if (type === "SANDBOX" && p.port === LIMITS.sandboxReservedPort) {
      out.push({
        field,
        reason: "WORKLOAD_SANDBOX_PORT_RESERVED",
        message: `${field}.port 22 is reserved for SSH`,
      });
    }
    if (type === "SANDBOX" && p.routing !== undefined) {
      out.push({
        field: `${field}.routing`,
        reason: "WORKLOAD_FIELD_UNSUPPORTED",
        message: `${field}.routing must not be sent for sandboxes`,
      });
    }
    if ((type === "VM" || type === "SANDBOX") && p.protocol === "SCTP") {
      out.push({
        field: `${field}.protocol`,
        reason: "WORKLOAD_PORT_INVALID",
        message: `${field}.protocol must be TCP or UDP for ${type} workloads`,
      });
    }
    if (p.routing === "DIRECT") direct++;
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.port}/${p.protocol ?? "TCP"}`;
    if (seen.has(key)) {
      out.push({
        field: `ports[${i}]`,
        reason: "WORKLOAD_PORT_INVALID",
        message: `ports[${i}] duplicates port ${key}`,
      });
    }
    seen.add(key);
  });
  if (direct > LIMITS.directPortsMax) {
    out.push({
      field: "ports",
      reason: "WORKLOAD_DIRECT_PORTS_LIMIT",
      message: `ports may have at most ${LIMITS.directPortsMax} DIRECT ports (got ${direct})`,
    });
  }
  return out;
}

/** An SSH key named twice (the document: `uniqueItems`). */
export function sshKeyViolations(keys: readonly string[]): Violation[] {
  return keys.flatMap((k, i) =>
    keys.indexOf(k) < i
      ? [
          {
            field: `ssh_keys[${i}]`,
            reason: "WORKLOAD_FIELD_INVALID" as const,
            message: `ssh_keys[${i}] repeats SSH key ${k}`,
          },
        ]
      : [],
  );
}

export function sandboxTimeoutViolation(ttl?: number, idle?: number): Violation | undefined {
  if (ttl && idle && idle >= ttl) {
    return {
      field: "sandbox_config.idle_timeout_sec",
      reason: "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
      message:
        "sandbox_config.idle_timeout_sec must be smaller than sandbox_config.ttl_sec when both are enabled",
    };
  }
  return undefined;
}

/** The rules of spec 2.1 and the type-capability table that need no server data. */
export function workloadRuleViolations(body: WorkloadCreate): Violation[] {
  const out: Violation[] = [];
  const t = body.type;
  const present = (k: keyof WorkloadCreate) => body[k] !== undefined;
  const name = nameViolation(t, body.name);
  if (name) out.push(name);
  for (const field of unsupportedFields(t)) {
    if (!present(field as keyof WorkloadCreate)) continue;
    out.push({
      field,
      reason: field === "region" ? "WORKLOAD_REGION_NOT_ALLOWED" : "WORKLOAD_FIELD_UNSUPPORTED",
      message: `${field} is not supported for ${t} workloads`,
    });
  }
  if (t !== "SANDBOX" && !present("resource_name")) {
    out.push({
      field: "resource_name",
      reason: "WORKLOAD_FIELD_REQUIRED",
      message: `resource_name is required for ${t} workloads`,
    });
  }
  if (t === "VM" && !body.vm_config) {
    out.push({
      field: "vm_config.password",
      reason: "WORKLOAD_FIELD_REQUIRED",
      message: "vm_config.password is required for VM workloads",
    });
  }
  if (t === "BM") {
    if (!body.region) {
      out.push({
        field: "region",
        reason: "WORKLOAD_BM_REGION_REQUIRED",
        message: "region is required for BM workloads",
      });
    } else {
      const v = regionViolation("region", body.region);
      if (v) out.push(v);
    }
    if (!body.ssh_keys || body.ssh_keys.length === 0) {
      out.push({
        field: "ssh_keys",
        reason: "WORKLOAD_BM_SSH_KEYS_REQUIRED",
        message: "ssh_keys must name at least one SSH key for BM workloads",
      });
    }
    const hostname = body.bm_config?.hostname;
    if (hostname !== undefined && !HOSTNAME.test(hostname)) {
      out.push({
        field: "bm_config.hostname",
        reason: "WORKLOAD_BM_HOSTNAME_INVALID",
        message: `bm_config.hostname must be an RFC 1123 hostname (lowercase letters, digits, hyphens, dots), max ${LIMITS.bmHostnameMax} characters`,
      });
    }
  }
  if (body.ports) out.push(...portViolations(t, body.ports));
  if (body.ssh_keys) out.push(...sshKeyViolations(body.ssh_keys));
  if (t === "SANDBOX" && body.sandbox_config) {
    const v = sandboxTimeoutViolation(body.sandbox_config.ttl_sec, body.sandbox_config.idle_timeout_sec);
    if (v) out.push(v);
  }
  if (t === "RENTAL" && !NO_WHITESPACE.test(body.image)) {
    out.push({
      field: "image",
      reason: "WORKLOAD_FIELD_INVALID",
      message: "image must be a container image reference without spaces",
    });
  }
  return out;
}

/** What a value of each zod type is, in words. */
const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "an object",
};

/**
 * The message of a value of the wrong type: "is required" when there is none, else what it must
 * be. zod's own words say which ("Invalid input: expected string, received undefined"); a
 * schema's own message is kept.
 */
function typeMessage(message: string, expected: string): string {
  const received = /^Invalid input: expected \S+, received (\S+)$/.exec(message)?.[1];
  if (received === undefined) return message;
  return received === "undefined" ? "is required" : `must be ${TYPE_WORDS[expected] ?? expected}`;
}

/** Maps a zod failure to violations naming the wire field. */
export function zodViolations(error: z.ZodError, reason: Reason): Violation[] {
  return error.issues.map((issue) => {
    const field = issue.path
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join("");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (field ? `${field}.${k}` : k));
      return {
        field: keys[0] ?? field,
        reason,
        message: `unknown field${keys.length > 1 ? "s" : ""}: ${keys.join(", ")}`,
      };
    }
    if (issue.code === "invalid_type") message = typeMessage(issue.message, issue.expected);
    else if (issue.code === "invalid_value" && "values" in issue)
      message = `must be one of ${issue.values.join(", ")}`;
    return {
      field: field || "body",
      reason,
      message: message.startsWith(field) ? message : `${field || "body"}: ${message}`,
    };
  });
}

/** Structural and rule validation of a create body in one call. */
export function validateWorkloadCreate(
  input: unknown,
): { ok: true; value: WorkloadCreate } | { ok: false; violations: Violation[] } {
  const parsed = WorkloadCreate.safeParse(input);
  if (!parsed.success) return { ok: false, violations: zodViolations(parsed.error, "INVALID_BODY") };
  const violations = workloadRuleViolations(parsed.data);
  return violations.length ? { ok: false, violations } : { ok: true, value: parsed.data };
}
