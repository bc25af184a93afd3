/**
 * What a change does, in words, said on the resource's own line by both front ends (the dynamic
 * one learns the resource's URN from its class: `__urn`): at preview, and, of a broken object,
 * at the refresh that finds it so.
 */
import type { DiffResult } from "./types.ts";

const changes = (keys: string[]) => `${keys.join(", ")} change${keys.length === 1 ? "s" : ""}`;

/**
 * What the change does, in words, for the resource's line: that the object is broken and up
 * repairs it, why it is replaced when its properties alone do not say, which changes make the
 * service redeploy (restart) it, and which are applied in place without one. Of the changes nothing when it is replaced, or when the diff is not one up
 * plans (`planned` false: a refresh's).
 */
export function diffWords(
  type: string,
  d: DiffResult,
  name: unknown,
  status?: unknown,
  planned = true,
): string[] {
  const keys = Object.keys(d.detail).filter((k) => k !== "status");
  const what = `${type.toLowerCase()}${typeof name === "string" ? ` ${name}` : ""}`;
  const words: string[] = [];
  if (d.detail.status && !d.replaces.length)
    words.push(
      d.detail.status === "redeploy"
        ? `${what} is in ${String(status)} on the service: up redeploys it to repair it`
        : `${what} is ${String(status)} on the service, not deployed: up deploys it`,
    );
  if (!planned || !keys.length) return words;
  // Why, where the changed properties alone do not say it (a placement no longer a candidate).
  words.push(...(d.reasons ?? []).map((r) => `${what}: ${r}`));
  if (d.replaces.length) return words;
  const redeploys = keys.filter((k) => d.detail[k] === "redeploy");
  const inPlace = keys.filter((k) => d.detail[k] === "update");
  if (redeploys.length) words.push(`${changes(redeploys)}: the service redeploys ${what} (restart)`);
  if (inPlace.length) words.push(`${changes(inPlace)}: updated in place, no redeploy`);
  return words;
}

/**
 * The resources whose program inputs the engine checked in this provider process. A preview or up
 * checks a resource before it diffs it; a refresh diffs what it read against the recorded inputs
 * without a check, to show the drift, and changes nothing: words of what up would change are
 * said only for a checked resource (that an object is broken is said either way).
 */
export class Planned {
  readonly #urns = new Set<string>();

  checked(urn: string): void {
    this.#urns.add(urn);
  }

  /** diffWords for the resource `urn`, as planned when the engine checked it. */
  words(urn: string, type: string, d: DiffResult, name: unknown, status?: unknown): string[] {
    return diffWords(type, d, name, status, this.#urns.has(urn));
  }
}
