/**
 * How adopted objects refer to each other, and the order they are written in. An input holding
 * the uid of another adopted object (a workload's volumes and SSH keys, a fork's parent, a
 * sandbox's USER template, the uids inside a template's manifest) is a reference: the generated
 * code names that resource instead of repeating the uid. Objects come after the ones they refer
 * to; otherwise by kind (ADOPT_KINDS), name, creation time and uid, so that the same org always
 * gives the same file.
 */
import { ADOPT_KINDS, type Adopted } from "./inventory.ts";

/** Where in an object's inputs a uid of another adopted object sits. */
export type Path = (string | number)[];

export interface Reference {
  path: Path;
  target: Adopted;
}

/** The references in `obj`'s inputs to other objects of `byUid`. */
export function referencesOf(obj: Adopted, byUid: ReadonlyMap<string, Adopted>): Reference[] {
  const out: Reference[] = [];
  const walk = (v: unknown, path: Path) => {
    if (typeof v === "string") {
      const target = byUid.get(v);
      if (target && target.uid !== obj.uid) out.push({ path, target });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(obj.inputs, []);
  return out;
}

/** Kind, then name, creation time and uid: the order of objects nothing else orders. */
export function compareObjects(a: Adopted, b: Adopted): number {
  const rank = (o: Adopted) => ADOPT_KINDS.indexOf(o.kind);
  return rank(a) - rank(b) || cmp(a.name, b.name) || cmp(a.createdAt, b.createdAt) || cmp(a.uid, b.uid);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The objects with every one after those it refers to (a stable topological order: among the
 * objects ready to come next, the first by compareObjects).
 */
export function dependencyOrder(objects: Adopted[]): Adopted[] {
  const byUid = new Map(objects.map((o) => [o.uid, o]));
  const needs = new Map(
    objects.map((o) => [o.uid, new Set(referencesOf(o, byUid).map((r) => r.target.uid))]),
  );
  const out: Adopted[] = [];
  const done = new Set<string>();
  let pending = [...objects].sort(compareObjects);
  while (pending.length) {
    const i = pending.findIndex((o) => [...needs.get(o.uid)!].every((u) => done.has(u)));
    // A cycle cannot come from the service (nothing refers back); should one appear, keep going.
    const next = pending[i < 0 ? 0 : i]!;
    out.push(next);
    done.add(next.uid);
    pending = pending.filter((o) => o !== next);
  }
  return out;
}

/** The objects `roots` refer to, directly or through others, with the roots themselves. */
export function withDependencies(roots: Adopted[], all: Adopted[]): Adopted[] {
  const byUid = new Map(all.map((o) => [o.uid, o]));
  const keep = new Map<string, Adopted>();
  const visit = (o: Adopted) => {
    if (keep.has(o.uid)) return;
    keep.set(o.uid, o);
    for (const r of referencesOf(o, byUid)) visit(r.target);
  };
  roots.forEach(visit);
  return all.filter((o) => keep.has(o.uid));
}
