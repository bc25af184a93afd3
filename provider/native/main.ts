/**
 * Entry point of the `pulumi-resource-cws` plugin. The engine starts it with its own address as
 * the argument and reads the port of the plugin's gRPC server from the first line of stdout.
 */
import { readFileSync } from "node:fs";
import { engineLog } from "./engine-log.ts";
import { servedSchema } from "./schema.ts";
import { CwsPlugin, serve } from "./server.ts";

const ROOT = new URL("../../", import.meta.url);

const version = (JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { version: string })
  .version;
const engineAddress = process.argv.slice(2).find((a) => !a.startsWith("-"));
const log = engineLog(engineAddress);

let schema: string | undefined;
const plugin = new CwsPlugin({ version, log, schema: () => (schema ??= servedSchema(ROOT, version)) });

const { port } = await serve(plugin);
process.stdout.write(`${port}\n`);
