/**
 * `node scripts/check-imports.ts [--root DIR] [DIR...]` (part of `npm run lint`): fails when the
 * relative imports of the TypeScript sources form a cycle, and lists each cycle.
 *
 * Every `.ts` / `.mts` file under the source folders (default: SOURCE_DIRS of the repository) is
 * read with the TypeScript parser; its edges are the relative specifiers of `import` and
 * `export ... from` declarations, `import type` included (a type-only cycle still ties two
 * modules together: neither can be read, moved or compiled alone), `import("...")` calls and
 * `typeof import("...")` types. Package imports (`node:fs`, `pulumi-cws/...`) are not followed.
 *
 * Each strongly connected group of files is one finding: the files it holds and one cycle through
 * them, with `(type)` on the edges that are type-only. It also fails on an import that goes up
 * the layers of scripts/layers.ts without a `// layer: <reason>` comment on the line before it.
 * Exit code 1 when there is any finding, else 0.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { upwardImports } from "./layers.ts";

/** The folders whose sources are checked, relative to the repository root. */
export const SOURCE_DIRS = ["cli", "api", "client", "provider", "sdk", "server", "scripts", "bench"];

/** One import edge: the file imported and whether only types cross it. */
export interface Edge {
  to: string;
  typeOnly: boolean;
}

/** Files under dir with a .ts or .mts name (declaration files and node_modules left out). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.isFile() && /\.m?ts$/.test(e.name) && !/\.d\.m?ts$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The file a relative specifier names, or undefined when it is not a TypeScript source. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((c) => /\.m?ts$/.test(c) && existsSync(c) && statSync(c).isFile());
}

/** Whether an import declaration brings in types only (`import type`, or every name `type`). */
function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "./x.ts"` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && allTypeOnly(bindings.elements);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && allTypeOnly(clause.elements);
}

/** Whether a list of named imports or exports is not empty and names types only. */
function allTypeOnly(elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean {
  return elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

/** The relative imports of one file, as written (specifier and whether type-only). */
export function importsOf(fileName: string, text: string): { spec: string; typeOnly: boolean }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { spec: string; typeOnly: boolean }[] = [];
  const add = (lit: ts.Node | undefined, typeOnly: boolean) => {
    if (lit && ts.isStringLiteralLike(lit) && lit.text.startsWith("."))
      out.push({ spec: lit.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importIsTypeOnly(node));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, exportIsTypeOnly(node));
    else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal, true);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0], false);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The import graph of the files under dirs: file -> its edges (several imports of one file merged). */
export function importGraph(dirs: readonly string[]): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const file of sourceFiles(dir)) {
      const edges = new Map<string, boolean>();
      for (const { spec, typeOnly } of importsOf(file, readFileSync(file, "utf8"))) {
        const to = resolveSpecifier(file, spec);
        if (to === undefined) continue;
        edges.set(to, (edges.get(to) ?? true) && typeOnly);
      }
      graph.set(
        file,
        [...edges].map(([to, t]) => ({ to, typeOnly: t })),
      );
    }
  }
  return graph;
}

/** Strongly connected groups of more than one file, or of one file that imports itself (Tarjan). */
export function cyclicGroups(graph: ReadonlyMap<string, readonly Edge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        connect(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    const selfLoop = (graph.get(v) ?? []).some((e) => e.to === v);
    if (group.length > 1 || selfLoop) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A shortest cycle from the group's first file back to it, staying inside the group (breadth first). */
export function cycleThrough(graph: ReadonlyMap<string, readonly Edge[]>, group: readonly string[]): Edge[] {
  const start = group[0]!;
  const inGroup = new Set(group);
  const cameFrom = new Map<string, { from: string; edge: Edge }>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const e of graph.get(v) ?? []) {
      if (!inGroup.has(e.to) || cameFrom.has(e.to)) continue;
      cameFrom.set(e.to, { from: v, edge: e });
      if (e.to === start) {
        const path: Edge[] = [];
        for (let at = start; path.length === 0 || at !== start;) {
          const step = cameFrom.get(at)!;
          path.unshift(step.edge);
          at = step.from;
        }
        return path;
      }
      queue.push(e.to);
    }
  }
  throw new Error(`no cycle through ${start}`);
}

/** The report of the cycles in graph (file names relative to root); empty when there is none. */
export function describeCycles(graph: ReadonlyMap<string, readonly Edge[]>, root: string): string[] {
  const rel = (f: string) => relative(root, f);
  return cyclicGroups(graph).map((group) => {
    const steps = cycleThrough(graph, group).map((e) => ` -> ${rel(e.to)}${e.typeOnly ? " (type)" : ""}`);
    const lines = [`cycle: ${rel(group[0]!)}${steps.join("")}`];
    if (group.length > steps.length) lines.push(`  files in this cycle group: ${group.map(rel).join(", ")}`);
    return lines.join("\n");
  });
}

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/** Whether the import of `target` in `file` has a `// layer: <reason>` comment on the line before it. */
export function hasLayerReason(file: string, target: string): boolean {
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /from\s+["'](\.[^"']+)["']/.exec(lines[i]!);
    if (!m || resolveSpecifier(file, m[1]!) !== target) continue;
    let start = i;
    while (start > 0 && !/^\s*(import|export)\b/.test(lines[start]!)) start--;
    if (/^\s*\/\/ layer: \S/.test(lines[start - 1] ?? "")) return true;
  }
  return false;
}

function main(argv: string[]): number {
  let root = resolve(import.meta.dirname, "..");
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--root") root = resolve(argv[++i] ?? ".");
    else dirs.push(argv[i]!);
  }
  const folders = (dirs.length ? dirs : SOURCE_DIRS).map((d) => resolve(root, d));
  const graph = importGraph(folders);
  const report = describeCycles(graph, root);
  const upward = upwardImports(graph, root, hasLayerReason);
  if (upward.length) {
    console.error(
      `check-imports: ${upward.length} import(s) up the layers or to a peer (scripts/layers.ts) without a reason:`,
    );
    for (const u of upward) console.error(`  ${u}`);
    return 1;
  }
  if (report.length === 0) {
    console.log(`check-imports: no import cycles and no import up the layers among ${files(graph.size)}`);
    return 0;
  }
  console.error(
    `check-imports: ${report.length} import cycle${report.length > 1 ? "s" : ""} among ${files(graph.size)}:`,
  );
  for (const r of report) console.error(r);
  return 1;
}

if (import.meta.filename === resolve(process.argv[1] ?? "")) process.exitCode = main(process.argv.slice(2));
