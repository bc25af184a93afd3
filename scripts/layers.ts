/**
 * The layers of the sources, kept by `node scripts/check-imports.ts` (npm run lint): a file may
 * import files of its own layer and of the layers below, never above, unless the import says
 * why on the line before it (`// layer: <reason>`). Type-only imports of the server's shared
 * context (`server/context.ts`, what every module receives) are allowed from every layer.
 */
import { relative, sep } from "node:path";

/**
 * Layers, lowest first. A file belongs to the first entry whose folder holds it; the server's
 * root files (startServer, the context, the composition of the services and modules, the CLI)
 * are the top.
 */
export const LAYERS: readonly { name: string; folders: readonly string[] }[] = [
  { name: "sandbox runtime", folders: ["server/sandbox/runtime"] },
  { name: "contract", folders: ["api"] },
  { name: "client", folders: ["client"] },
  { name: "server base", folders: ["server/common/util.ts"] },
  { name: "server store", folders: ["server/store", "server/seed"] },
  { name: "server http", folders: ["server/http"] },
  { name: "server common", folders: ["server/common"] },
  { name: "server workloads", folders: ["server/workloads"] },
  {
    name: "server resources",
    folders: ["server/volumes", "server/ssh-keys", "server/templates"],
  },
  { name: "server sandboxes", folders: ["server/sandbox"] },
  {
    name: "server surfaces",
    folders: ["server/admin", "server/meta", "server/openapi", "server/dashboard"],
  },
  { name: "server root", folders: ["server/cli", "server"] },
];

/** The shared context: importable (types only) from every layer. */
const CONTEXT = "server/context.ts";

/** The layer index of a file (relative to the root), or undefined outside every layer. */
export function layerOf(file: string): number | undefined {
  const f = file.split(sep).join("/");
  let found: number | undefined;
  let depth = -1;
  LAYERS.forEach((layer, i) => {
    for (const folder of layer.folders) {
      if ((f === folder || f.startsWith(`${folder}/`)) && folder.length > depth) {
        found = i;
        depth = folder.length;
      }
    }
  });
  return found;
}

/** Imports that go to a higher layer without a `// layer:` reason on the line before them. */
export function upwardImports(
  graph: ReadonlyMap<string, readonly { to: string; typeOnly: boolean }[]>,
  root: string,
  reasons: (file: string, target: string) => boolean,
): string[] {
  const out: string[] = [];
  for (const [file, edges] of graph) {
    const from = relative(root, file);
    const mine = layerOf(from);
    if (mine === undefined) continue;
    for (const e of edges) {
      const to = relative(root, e.to);
      const theirs = layerOf(to);
      if (theirs === undefined || theirs <= mine) continue;
      if (to.split(sep).join("/") === CONTEXT && e.typeOnly) continue;
      if (reasons(file, e.to)) continue;
      out.push(`${from} (${LAYERS[mine]!.name}) imports ${to} (${LAYERS[theirs]!.name})`);
    }
  }
  return out.sort();
}
