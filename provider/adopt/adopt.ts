/**
 * Adoption of a whole org: list what it has, read each object through its resource module (the
 * read `pulumi import` and refresh use), keep what the filters select, order and name the
 * objects, find the secrets they lack, and write the file of the chosen tool. Nothing on the
 * service is created, changed or deleted: only GETs are sent.
 */
import type { CwsClient } from "../../client/index.ts";
import type { Context } from "../core/types.ts";
import { dependencyOrder, withDependencies } from "./graph.ts";
import { ADOPT_KINDS, listOrg, readAll, type Adopted } from "./inventory.ts";
import { hclName, pulumiName, uniqueNames } from "./names.ts";
import { importFile, importFileText } from "./pulumi.ts";
import { missingSecrets, type MissingSecret } from "./secrets.ts";
import { tfResource, tofuFile } from "./tofu.ts";

export const FORMATS = ["pulumi", "tofu"] as const;
export type Format = (typeof FORMATS)[number];

/** How the OpenTofu file's import blocks name each object: by identity (OpenTofu/Terraform 1.12+) or by id. */
export const IMPORT_BY = ["identity", "id"] as const;
export type ImportBy = (typeof IMPORT_BY)[number];

export interface AdoptOptions {
  format: Format;
  /** The org's slug (said in the file's header). */
  org: string;
  /** Only these kinds (ADOPT_KINDS names). */
  types?: string[];
  /** Only objects whose name matches this glob (`*`, `?`). */
  name?: string;
  /** Only the workloads and sandboxes of this project, with what they use. */
  project?: string;
  /** With --format tofu: import blocks by identity (the default) or by id. */
  importBy?: ImportBy;
  /** Reads at a time (default 8). */
  concurrency?: number;
}

export interface AdoptResult {
  /** The file's text. */
  text: string;
  /** The objects written, in the file's order. */
  objects: Adopted[];
  /** The name of each object in the file, by uid. */
  names: ReadonlyMap<string, string>;
  secrets: MissingSecret[];
}

/** `web-*` → a RegExp matching whole names (`*` any run, `?` one character). */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** The kind a `--type` value names: `Workload`, `workload`, `cws:index:SshKey`, `cws_ssh_key`, `ssh-key`. */
export function kindOf(type: string): string | undefined {
  const key = (s: string) =>
    s
      .toLowerCase()
      .replace(/^cws:index:|^cws_/, "")
      .replace(/[-_]/g, "");
  return ADOPT_KINDS.find((k) => key(k) === key(type));
}

/** The objects the filters keep, among everything read. */
export function select(all: Adopted[], opts: Pick<AdoptOptions, "types" | "name" | "project">): Adopted[] {
  let keep = all;
  if (opts.project !== undefined) {
    const anchors = all.filter(
      (o) => (o.kind === "Workload" || o.kind === "Sandbox") && o.projectId === opts.project,
    );
    keep = withDependencies(anchors, all);
  }
  if (opts.types?.length) keep = keep.filter((o) => opts.types!.includes(o.kind));
  if (opts.name !== undefined) {
    const re = globRegExp(opts.name);
    keep = keep.filter((o) => re.test(o.name));
  }
  return keep;
}

export async function adoptOrg(
  client: CwsClient,
  opts: AdoptOptions,
  signal?: AbortSignal,
): Promise<AdoptResult> {
  const ctx: Context = { client, log: () => {}, signal };
  // Without --project, nothing but the kinds asked for needs listing and reading.
  const kinds = opts.project === undefined && opts.types?.length ? opts.types : ADOPT_KINDS;
  const listed = await listOrg(client, signal, kinds);
  const read = await readAll(ctx, listed, opts.concurrency ?? 8);
  const objects = dependencyOrder(select(read, opts));
  if (opts.format === "pulumi") {
    const names = uniqueNames(objects, pulumiName, "");
    const secrets = objects.flatMap((o) => missingSecrets(o, { pulumi: names.get(o.uid) }));
    return { text: importFileText(importFile(objects, names)), objects, names, secrets };
  }
  const names = uniqueNames(objects, hclName, "_", (o) => tfResource(o.kind).typeName);
  const secrets = objects.flatMap((o) => missingSecrets(o, { hcl: names.get(o.uid) }));
  const byObject = new Map<string, MissingSecret[]>();
  for (const s of secrets) byObject.set(s.object.uid, [...(byObject.get(s.object.uid) ?? []), s]);
  const text = tofuFile(objects, {
    org: opts.org,
    names,
    secrets: byObject,
    importBy: opts.importBy ?? "identity",
  });
  return { text, objects, names, secrets };
}
