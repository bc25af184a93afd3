/**
 * `npm run schema`: writes schema.json (the native plugin's package schema) from the resource
 * property table, the api/ contract, the lookups and docs/resources.md. Never edit it by hand.
 * `--check` exits 1 when the file on disk is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, schemaText } from "../provider/native/schema.ts";
import { REPO_ROOT } from "./pulumi-toolchain.ts";

export function generatedSchema(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
  return schemaText(buildSchema(pkg.version));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = join(REPO_ROOT, "schema.json");
  const text = generatedSchema();
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(target, "utf8");
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error("schema.json is stale: run `npm run schema`");
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
