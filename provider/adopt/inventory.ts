/**
 * What an org has that can be adopted, read the way `pulumi import` and refresh read it: every
 * live object is listed by its kind's list resource (the one `terraform query` uses), then read
 * by its resource module (`read` with no prior state, a lookup), which gives the inputs a program
 * would have written. Left out, by the lists: the platform's FRESH sandbox templates, PUBLIC
 * workload templates (visible to every org, not its own), and deleted workloads and volumes.
 */
import type { CwsClient } from "../../client/index.ts";
import type { Listed as CoreListed } from "../core/list.ts";
import type { Context, Props } from "../core/types.ts";
import { LISTS, RESOURCES } from "../registry.ts";

/** The kinds `cws adopt` brings under code, in the order they come when nothing else orders them. */
export const ADOPT_KINDS = ["SshKey", "Volume", "Sandbox", "SandboxTemplate", "Workload", "WorkloadTemplate"];

/** An object as listed (core/list.ts); adopt fills in the project from its read. */
export interface Listed extends CoreListed {
  /** Workloads and sandboxes: the project, when it has one. */
  projectId?: string;
}

/** An object read back: what it is listed as, and its inputs. */
export interface Adopted extends Listed {
  inputs: Props;
}

/**
 * Every adoptable object of the org of `kinds` (by default all), listed (not read): each kind's
 * list resource (provider/resources/<kind>/list.ts, the lists `terraform query` reads) without
 * filters.
 */
export async function listOrg(
  client: CwsClient,
  signal?: AbortSignal,
  kinds: readonly string[] = ADOPT_KINDS,
): Promise<Listed[]> {
  const lists = await Promise.all(
    kinds.map(async (kind) => {
      const out: Listed[] = [];
      for await (const l of LISTS[kind]!.list(client, {}, signal)) out.push(l);
      return out;
    }),
  );
  return lists.flat();
}

/** Runs `work` on every item, at most `limit` at a time; results in the items' order. */
export async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Each listed object read by its resource module, `concurrency` reads at a time. An object gone
 * between the list and the read is left out.
 */
export async function readAll(ctx: Context, listed: Listed[], concurrency = 8): Promise<Adopted[]> {
  const read = await mapLimit(listed, concurrency, async (l): Promise<Adopted | undefined> => {
    const module = RESOURCES[l.kind];
    if (!module) throw new Error(`cws adopt: no resource module for ${l.kind}`);
    const r = await module.read(ctx, l.uid, {});
    if (!r) return undefined;
    const projectId = typeof r.inputs.projectId === "string" ? r.inputs.projectId : undefined;
    // A workload template's list item has no timestamps; its read does.
    const createdAt = l.createdAt || String(r.outputs.createdAt ?? "");
    return { ...l, createdAt, ...(projectId ? { projectId } : {}), inputs: r.inputs };
  });
  return read.filter((a): a is Adopted => a !== undefined);
}
