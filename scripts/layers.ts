/**
 * The layers of the sources, kept by `node scripts/check-imports.ts` (npm run lint): a file may
 * import files of its own layer and of the layers below, never above, and never a file of a peer
 * (layers side by side, such as the provider's front ends), unless the import says why on the
 * line before it (`// layer: <reason>`). Type-only imports of the server's shared context
 * (`server/context.ts`, what every module receives) are allowed from every layer.
 */
import { relative, sep } from "node:path";

/** The provider's front ends: peers, each speaking its own protocol over the layers below. */
const FRONT_ENDS = "provider front ends";

/**
 * Layers, lowest first. A file belongs to the entry whose folder holds it most closely (the longest
 * match: server/sandbox/runtime before server); the server's
 * root files (startServer, the context, the composition of the services and modules, its commands)
 * come next, and the `cws` command and the release executable, over both the server and the
 * provider, are the top.
 */
export const LAYERS: readonly {
  name: string;
  folders: readonly string[];
  /** Entries with the same `peers` stand side by side (listed together): none may import another. */
  peers?: string;
}[] = [
  { name: "sandbox runtime", folders: ["server/sandbox/runtime"] },
  { name: "contract", folders: ["api"] },
  { name: "client", folders: ["client"] },
  { name: "provider core", folders: ["provider/core"] },
  { name: "provider resources", folders: ["provider/resources"] },
  { name: "provider registry", folders: ["provider/registry.ts"] },
  { name: "provider front-end base", folders: ["provider/frontend"] },
  { name: "provider schema", folders: ["provider/schema"] },
  { name: "provider dynamic", folders: ["provider/dynamic.ts", "provider/dynamic"], peers: FRONT_ENDS },
  { name: "provider native", folders: ["provider/native"], peers: FRONT_ENDS },
  { name: "provider opentofu", folders: ["provider/opentofu"], peers: FRONT_ENDS },
  // The guardrails: the rules over a neutral view, then their two front ends side by side (the
  // CrossGuard pack and the reader of OpenTofu/Terraform plans), then `cws policy check`.
  { name: "guardrail rules", folders: ["provider/policy"] },
  { name: "guardrail pack", folders: ["provider/policy/pack.ts"], peers: "guardrail front ends" },
  { name: "guardrail plan", folders: ["provider/policy/plan.ts"], peers: "guardrail front ends" },
  { name: "guardrail command", folders: ["provider/policy/command.ts"] },
  // `cws adopt` writes what the Pulumi and OpenTofu front ends import: it reads both.
  { name: "provider adopt", folders: ["provider/adopt"] },
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
  // The `cws` command and the release executable, which is also either plugin: the one layer that
  // reaches the server and the provider alike. It parses the command line (cli/flags.ts) and
  // dispatches the values: the server's commands and `cws adopt` below it declare their flags and
  // take them parsed, and never import cli/.
  { name: "cws command", folders: ["cli"] },
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

/** Whether two layers are peers: side by side, neither may import the other. */
function peers(a: number, b: number): boolean {
  const p = LAYERS[a]!.peers;
  return a !== b && p !== undefined && p === LAYERS[b]!.peers;
}

/** Imports that go to a higher layer or a peer without a `// layer:` reason on the line before them. */
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
      if (theirs === undefined || (theirs <= mine && !peers(mine, theirs))) continue;
      if (to.split(sep).join("/") === CONTEXT && e.typeOnly) continue;
      if (reasons(file, e.to)) continue;
      const peer = peers(mine, theirs) ? `, its peer among the ${LAYERS[mine]!.peers}` : "";
      out.push(`${from} (${LAYERS[mine]!.name}) imports ${to} (${LAYERS[theirs]!.name}${peer})`);
    }
  }
  return out.sort();
}
