/**
 * Entry point of the `pulumi-resource-cws` plugin. The engine starts it with its own address as
 * the argument and reads the port of the plugin's gRPC server from the first line of stdout.
 */
import { readFileSync } from "node:fs";
import { cachedImport, flushCompileCache } from "../frontend/compile-cache.ts";
import { engineLog } from "../frontend/engine-log.ts";
import type { CwsPlugin } from "./adapter.ts";
import { serve } from "./serve.ts";

const ROOT = new URL("../../", import.meta.url);

const version = (JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { version: string })
  .version;
const engineAddress = process.argv.slice(2).find((a) => !a.startsWith("-"));
/** The engine's log, its gRPC client loaded by the first message (none is said before a call). */
const log = engineLog(engineAddress, async () => {
  const [grpc, engineGrpc, enginePb] = await cachedImport(
    Promise.all([
      import("@grpc/grpc-js"),
      import("@pulumi/pulumi/proto/engine_grpc_pb.js"),
      import("@pulumi/pulumi/proto/engine_pb.js"),
    ]),
  );
  return { grpc, services: engineGrpc.default, messages: enginePb.default };
});

/**
 * The adapter, with the resource modules and the contract they are checked with: loaded by the
 * first call (serve.ts), so that the port line does not wait for them.
 */
async function plugin(): Promise<CwsPlugin> {
  const [{ CwsPlugin }, { servedSchema }] = await cachedImport(
    Promise.all([import("./adapter.ts"), import("../schema/package-schema.ts")]),
  );
  let schema: string | undefined;
  const p = new CwsPlugin({ version, log, schema: () => (schema ??= servedSchema(ROOT, version)) });
  return p;
}

// No top-level await: a Pulumi install's Node.js language host loads this module with require().
serve(plugin).then(
  ({ port }) => {
    process.stdout.write(`${port}\n`);
    flushCompileCache();
  },
  (e: unknown) => {
    process.stderr.write(`pulumi-resource-cws: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
