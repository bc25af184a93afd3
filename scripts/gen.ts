/**
 * `npm run gen`: writes everything generated from the resource definitions
 * (provider/resources/<kind>/definition.ts): schema.json, the TypeScript classes of both front
 * ends (sdk/<kind>.ts, sdk/types.ts, sdk/index.ts, sdk/native/resources.ts) and the reference
 * pages (docs/resources/, docs/resources/actions/ and docs/resources/lists/ from the actions and
 * list resources beside them); and, from the provider's settings (provider/frontend/settings.ts), the
 * native provider class (sdk/native/provider.ts). Never edit those by hand. `--check` writes nothing and exits 1 naming
 * the files that differ from what it would write (test/provider/native/schema.test.ts runs it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as prettier from "prettier";
import { ACTIONS, DEFINITIONS, LISTS } from "../provider/registry.ts";
import { buildSchema, schemaText } from "../provider/schema/package-schema.ts";
import { actionFileOf, actionPage } from "./gen/action-docs.ts";
import { indexPage, resourcePage } from "./gen/docs.ts";
import { listFileOf, listPage } from "./gen/list-docs.ts";
import { classFile, fileOf, indexFile, nativeFile, providerFile, typesFile } from "./gen/sdk-classes.ts";
import { REPO_ROOT } from "./repo-root.ts";

/** Every generated file: its path from the repository root and its text. */
export async function generatedFiles(): Promise<Map<string, string>> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
  const defs = Object.values(DEFINITIONS);
  const files = new Map<string, string>([
    ["schema.json", schemaText(buildSchema(pkg.version))],
    ["sdk/types.ts", typesFile()],
    ["sdk/index.ts", indexFile(defs)],
    ["sdk/native/resources.ts", nativeFile(defs)],
    ["sdk/native/provider.ts", providerFile()],
    ["docs/resources/index.md", indexPage(defs)],
  ]);
  for (const d of defs) {
    files.set(`sdk/${fileOf(d)}.ts`, classFile(d));
    files.set(`docs/resources/${fileOf(d)}.md`, resourcePage(d));
  }
  for (const a of Object.values(ACTIONS))
    files.set(`docs/resources/actions/${actionFileOf(a)}.md`, actionPage(a));
  for (const l of Object.values(LISTS)) files.set(`docs/resources/lists/${listFileOf(l)}.md`, listPage(l));
  const out = new Map<string, string>();
  for (const [path, text] of files) {
    const options = (await prettier.resolveConfig(join(REPO_ROOT, path))) ?? {};
    out.set(path, await prettier.format(text, { ...options, filepath: join(REPO_ROOT, path) }));
  }
  return out;
}

/** The generated files whose text on disk differs from what `npm run gen` writes. */
export async function staleFiles(): Promise<string[]> {
  const stale: string[] = [];
  for (const [path, text] of await generatedFiles()) {
    const file = join(REPO_ROOT, path);
    if (!existsSync(file) || readFileSync(file, "utf8") !== text) stale.push(path);
  }
  return stale;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--check")) {
    const stale = await staleFiles();
    if (stale.length) {
      console.error(`stale generated files (run \`npm run gen\`): ${stale.join(", ")}`);
      process.exit(1);
    }
  } else {
    for (const [path, text] of await generatedFiles()) {
      mkdirSync(dirname(join(REPO_ROOT, path)), { recursive: true });
      writeFileSync(join(REPO_ROOT, path), text);
      console.log(`wrote ${path}`);
    }
  }
}
