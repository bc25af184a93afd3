/**
 * Entry point of `terraform-provider-cws`, the provider for OpenTofu and Terraform. They start
 * it with the go-plugin environment and read the handshake line from its first line of stdout.
 */
import { readFileSync } from "node:fs";
import { cachedImport, flushCompileCache } from "../frontend/compile-cache.ts";
import type { TofuProvider } from "./adapter.ts";
import { refusal, serve } from "./serve.ts";
import type { PackageSchema } from "./tf-schema.ts";

const ROOT = new URL("../../", import.meta.url);

const refused = refusal();
if (refused) {
  process.stderr.write(`terraform-provider-cws: ${refused}\n`);
  process.exit(1);
}
const version = (JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { version: string })
  .version;

/**
 * The adapter over the package's schema, with the resource modules and the contract they are
 * checked with: loaded by the first call (serve.ts), so that the handshake line does not wait for
 * them.
 */
async function provider(): Promise<TofuProvider> {
  const [{ TofuProvider }, { servedSchema }] = await cachedImport(
    Promise.all([import("./adapter.ts"), import("../schema/package-schema.ts")]),
  );
  const p = new TofuProvider(JSON.parse(servedSchema(ROOT, version)) as PackageSchema);
  return p;
}

serve(provider).then(
  ({ handshake }) => {
    process.stdout.write(`${handshake}\n`);
    flushCompileCache();
  },
  (e: unknown) => {
    process.stderr.write(`terraform-provider-cws: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
