/** Creating an object at most once, when a create's answer may be lost. */
import { isAmbiguous } from "../../client/errors.ts";
import { messageOf } from "./values.ts";

/**
 * How far the service's clock may be behind ours when a lost create is looked for: objects
 * created up to this long before the attempt started still count as made by it.
 */
export const CLOCK_SKEW_MS = 1_000;

/** Attempts of a create whose failures the lookup shows made nothing. */
export const CREATE_ATTEMPTS = 5;

/** ISO timestamp at or after `since` (epoch ms). */
export function createdSince(createdAt: string | undefined, since: number): boolean {
  return createdAt !== undefined && Date.parse(createdAt) >= since;
}

/** An object a lost create may have made. */
export interface Candidate {
  uid: string;
  name?: string;
  created_at?: string;
}

/** "web (uid w-1, created 2026-...)". */
const described = (c: Candidate) =>
  `${c.name ?? c.uid} (uid ${c.uid}${c.created_at ? `, created ${c.created_at}` : ""})`;

export interface CreateOnceSpec {
  /** What is created, for messages ("workload web"). */
  what: string;
  /** Sends the create request. */
  create: () => Promise<{ uid: string }>;
  /**
   * The objects that match the request in full (every field it sent, the name among them) and
   * were created at or after `since` (epoch ms): the candidates for the object a lost create
   * made. Their name and creation time, when given, are named in the refusal.
   */
  find: (since: number) => Promise<Candidate[]>;
  log?: (message: string) => void;
}

/**
 * Creates an object at most once, without listing anything unless a create fails ambiguously
 * (connection lost after the request was sent, 500/502/504). Then the objects matching the
 * whole request (its name among it) and created since the attempt began are looked up: exactly
 * one is the object this call made; none means nothing was made and the create is sent again
 * (up to CREATE_ATTEMPTS times); more than one cannot be told apart and is reported, naming each.
 *
 * What tells this call's object from another's is the request, the name first. An auto-name
 * (naming.ts) carries a random suffix chosen before the first attempt and sent by every retry,
 * so no other stack's create matches it. Two stacks that send the same explicit name and the
 * same inputs at the same moment make objects nothing tells apart: when both are found the
 * create is refused, naming both; when only the other stack's create landed, this call takes
 * it (docs/teams.md says so and how to avoid it: auto-names or per-stack names).
 */
export async function createOnce(spec: CreateOnceSpec): Promise<{ uid: string }> {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now() - CLOCK_SKEW_MS;
    try {
      return await spec.create();
    } catch (e) {
      if (!isAmbiguous(e)) throw e;
      const found = await spec.find(started);
      if (found.length === 1) {
        spec.log?.(
          `${spec.what}: the create's answer was lost (${messageOf(e)}); found it as ${found[0]!.uid}`,
        );
        return found[0]!;
      }
      if (found.length > 1) {
        throw new Error(
          `${spec.what}: the outcome of the create is unknown (${messageOf(e)}) and ${found.length} identical objects were created since it began: ${found.map(described).join(", ")}. ` +
            "Another stack may have created one with the same name and inputs at the same moment; nothing tells them apart. " +
            "Adopt this stack's with adoptUid and delete the others, and give each stack names of its own (leave name unset for auto-names)",
        );
      }
      if (attempt >= CREATE_ATTEMPTS) throw e;
      spec.log?.(`${spec.what}: the create failed (${messageOf(e)}) and made nothing; sending it again`);
    }
  }
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) if (keep(item)) out.push(item);
  return out;
}

/**
 * The `find` of a createOnce whose objects are listed: those that `matches` (the whole request)
 * and that were created at or after `since`.
 */
export function findCreated<T extends { created_at?: string }>(
  list: () => AsyncIterable<T>,
  matches: (item: T) => boolean,
): (since: number) => Promise<T[]> {
  return (since) => collect(list(), (item) => matches(item) && createdSince(item.created_at, since));
}
