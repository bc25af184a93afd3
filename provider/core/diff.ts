/**
 * Field-by-field comparison of old outputs with new inputs. Values are normalised first, so that
 * defaults the service fills in (protocol TCP, routing PROXIED, read_only false, "" project) never
 * show as changes. An input set before and unset now is a change to its empty value; an input
 * never set is not managed and never differs.
 */
import type { ChangeKind, DiffResult, Props } from "./types.ts";
import { UNKNOWN } from "./unknowns.ts";

export type Normaliser = (value: unknown) => unknown;

export interface FieldRule {
  kind: ChangeKind;
  normalise?: Normaliser;
  /** Compare even when the new input is unset (lifecycle switches with a default). */
  default?: unknown;
  /**
   * Sub-fields the service never returns (passwords). When the old value lacks one (the object
   * was imported), the program's value is taken as the service's: it is not compared.
   */
  writeOnly?: readonly string[];
  /**
   * The service never returns it (a create path parameter: the sandbox a template is published
   * from). When the old value lacks it (the object was imported), the program's value is taken as
   * the service's: it is not compared.
   */
  unread?: boolean;
}

/**
 * `next` without the write-only sub-fields that `prev` does not know. A field may be a dotted
 * path ("registryAuth.password" in a template's manifest); an object left empty by the removal
 * goes too when `prev` has none there.
 */
function withoutUnseen(fields: readonly string[], prev: unknown, next: unknown): unknown {
  if (!next || typeof next !== "object" || Array.isArray(next)) return next;
  const old = prev && typeof prev === "object" ? (prev as Props) : {};
  const out = { ...(next as Props) };
  for (const f of fields) {
    const [head, ...rest] = f.split(".");
    if (!rest.length) {
      if (old[head!] === undefined) delete out[head!];
      continue;
    }
    if (!out[head!] || typeof out[head!] !== "object") continue;
    const inner = withoutUnseen([rest.join(".")], old[head!], out[head!]) as Props;
    if (Object.keys(inner).length === 0 && old[head!] === undefined) delete out[head!];
    else out[head!] = inner;
  }
  return out;
}

/** Stable JSON for deep comparison (object keys sorted). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Props).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The empty value of every input kind: "", null, false, [] and {} all mean "none". */
const emptyToUndefined = (v: unknown) =>
  v === "" ||
  v === false ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
    ? undefined
    : v;

/** Whether two values mean the same under a rule's normaliser (empty values are all alike). */
export function sameValue(rule: FieldRule, a: unknown, b: unknown): boolean {
  const norm = rule.normalise ?? ((v: unknown) => v);
  const [x, y] = [emptyToUndefined(norm(a)), emptyToUndefined(norm(b))];
  // Most values are strings and numbers: compared as they are, without serialising.
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object") return false;
  return canonical(x) === canonical(y);
}

export function diffFields(rules: Record<string, FieldRule>, olds: Props, news: Props): DiffResult {
  const detail: Record<string, ChangeKind> = {};
  for (const [key, rule] of Object.entries(rules)) {
    let next = news[key];
    if (next === undefined && olds[key] === undefined && rule.default === undefined) continue;
    if (next === UNKNOWN) {
      detail[key] = rule.kind;
      continue;
    }
    next ??= rule.default;
    const prev = olds[key] ?? rule.default;
    if (rule.unread && prev === undefined) continue;
    if (rule.writeOnly) next = withoutUnseen(rule.writeOnly, prev, next);
    if (!sameValue(rule, prev, next)) detail[key] = rule.kind;
  }
  const replaces = Object.keys(detail).filter((k) => detail[k] === "replace");
  return { changes: Object.keys(detail).length > 0, replaces, deleteBeforeReplace: false, detail };
}

/** Normalises a list of port objects: default protocol and (unless sandbox) routing; sorted. */
export function portsNormaliser(withRouting: boolean): Normaliser {
  return (v) =>
    Array.isArray(v)
      ? (v as Props[])
          .map((p) => ({
            port: p.port,
            protocol: p.protocol ?? "TCP",
            ...(withRouting ? { routing: p.routing ?? "PROXIED" } : {}),
          }))
          .sort((a, b) => canonical(a).localeCompare(canonical(b)))
      : v;
}

export const sortedStrings: Normaliser = (v) => (Array.isArray(v) ? [...(v as string[])].sort() : v);

/**
 * Shapes inputs read back from the service (refresh, lookup) like the program wrote them: where
 * the service's value means the same as the old one, the old spelling is kept. On refresh, inputs
 * the program never set (absent from `olds`, no default) are left out: they are not managed, so
 * they never show as drift and are never reverted. A lookup (`olds` without a name) keeps every
 * value that is not empty. Real drift of managed inputs stays visible.
 */
export function keepProgramShape(rules: Record<string, FieldRule>, olds: Props, fresh: Props): Props {
  const out: Props = {};
  const lookup = olds.name === undefined;
  for (const [key, value] of Object.entries(fresh)) {
    const rule = rules[key];
    if (!rule) {
      out[key] = value;
      continue;
    }
    if (!lookup && olds[key] === undefined && rule.default === undefined) continue;
    // A lookup keeps an input whose secret part the service never returns even when nothing
    // else of it is readable (a VM's vmConfig): the object has it, only its secret is unknown.
    if (lookup && rule.writeOnly && value !== undefined && olds[key] === undefined) {
      out[key] = value;
      continue;
    }
    if (sameValue(rule, olds[key] ?? rule.default, value)) {
      if (olds[key] !== undefined) out[key] = olds[key];
    } else {
      out[key] = value;
    }
  }
  return out;
}
