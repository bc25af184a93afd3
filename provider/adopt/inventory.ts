/**
 * What an org has that can be adopted, read the way `pulumi import` and refresh read it: every
 * live object is listed through the API, then read by its resource module (`read` with no prior
 * state, a lookup), which gives the inputs a program would have written. Left out: the platform's
 * FRESH sandbox templates, PUBLIC workload templates (visible to every org, not its own), and
 * deleted workloads and volumes.
 */
import type { CwsClient } from "../../client/index.ts";
import type { Context, Props } from "../core/types.ts";
import { RESOURCES } from "../registry.ts";

/** The kinds `cws adopt` brings under code, in the order they come when nothing else orders them. */
export const ADOPT_KINDS = ["SshKey", "Volume", "Sandbox", "SandboxTemplate", "Workload", "WorkloadTemplate"];

/** An object as listed: enough to read it, name it and order it. */
export interface Listed {
  /** The resource type name (ADOPT_KINDS). */
  kind: string;
  uid: string;
  /** Its name on the service. */
  name: string;
  createdAt: string;
  /** Workloads and sandboxes: the project, when it has one. */
  projectId?: string;
}

/** An object read back: what it is listed as, and its inputs. */
export interface Adopted extends Listed {
  inputs: Props;
}

/** Every adoptable object of the org, listed (not read). */
export async function listOrg(client: CwsClient): Promise<Listed[]> {
  const out: Listed[] = [];
  const collect = async <T>(items: AsyncIterable<T>, each: (item: T) => Listed | undefined) => {
    for await (const item of items) {
      const l = each(item);
      if (l) out.push(l);
    }
  };
  await Promise.all([
    collect(client.sshKeys.iterate(), (k) => ({
      kind: "SshKey",
      uid: k.uid,
      name: k.name,
      createdAt: k.created_at,
    })),
    collect(client.volumes.iterate(), (v) =>
      v.deleted_by ? undefined : { kind: "Volume", uid: v.uid, name: v.name, createdAt: v.created_at },
    ),
    collect(client.workloads.iterate(), (w) =>
      w.state.status === "deleted"
        ? undefined
        : {
            kind: w.type === "SANDBOX" ? "Sandbox" : "Workload",
            uid: w.uid,
            name: w.name,
            createdAt: w.created_at,
          },
    ),
    collect(client.sandboxTemplates.iterate({ kind: "USER" }), (t) =>
      t.kind === "USER"
        ? { kind: "SandboxTemplate", uid: t.uid, name: t.name, createdAt: t.created_at }
        : undefined,
    ),
    collect(client.templates.iterate({ visibility: "PRIVATE" }), (t) =>
      t.visibility === "PRIVATE"
        ? { kind: "WorkloadTemplate", uid: t.uid, name: t.name, createdAt: "" }
        : undefined,
    ),
  ]);
  return out;
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
