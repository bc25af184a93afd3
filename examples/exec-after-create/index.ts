/**
 * A command run in a sandbox once it is created: what Terraform's `cws_workload_exec` action does
 * from `action_trigger { events = [after_create] }` (docs/actions.md), written with Pulumi's
 * resource hooks (Pulumi 3.276: `ResourceHook`, `hooks: { afterCreate: [...] }`) and the typed
 * client. The command's output is logged as the up runs; a non-zero exit fails `pulumi up`
 * with the code and the last lines of output. The hook runs after a create only: an update or a
 * later `pulumi up` with nothing to do runs nothing.
 */
import * as pulumi from "@pulumi/pulumi";
import { AsyncLocalStorage } from "node:async_hooks";
import { CwsClient } from "pulumi-cws/client";
import { Sandbox } from "pulumi-cws/sdk";

/** How many lines of output a failure quotes. */
const TAIL_LINES = 20;

export default async function program() {
  const config = new pulumi.Config();
  const migration =
    config.get("migration") ?? "echo migrating schema; echo v3 > /tmp/schema-version; echo schema at v3";

  // The client, from the provider's own settings (the token stays a secret: never printed).
  const cws = new pulumi.Config("cws");
  const client = new Promise<CwsClient>((resolve) =>
    pulumi
      .all([cws.require("baseUrl"), cws.require("org"), cws.requireSecret("apiToken")])
      .apply(([baseUrl, org, token]) => resolve(new CwsClient({ baseUrl, org, token }))),
  );

  // The engine calls a hook back outside the program's own context, where an inline program
  // (Automation API) keeps its connection to the engine: log through the program's context.
  const inProgram = AsyncLocalStorage.snapshot();
  const say = (line: string) => inProgram(() => pulumi.log.info(line));

  const migrate = new pulumi.ResourceHook("migrate", async (args) => {
    const r = await (await client).sandboxes.exec(args.id, { cmd: migration, timeout_sec: 120 });
    const lines = [...r.stdout.split("\n"), ...r.stderr.split("\n").map((l) => l && `stderr: ${l}`)].filter(
      Boolean,
    );
    for (const line of lines) await say(line);
    if (r.timed_out) throw new Error(`the migration did not finish within 120 s`);
    if (r.code !== 0)
      throw new Error(
        `the migration exited with code ${r.code}; last lines of output:\n${lines.slice(-TAIL_LINES).join("\n")}`,
      );
  });

  const box = new Sandbox(
    "box",
    { name: "migrate-box", template: config.get("template") ?? "tpl-ubuntu-headless" },
    { hooks: { afterCreate: [migrate] } },
  );

  return { uid: box.uid, status: box.status };
}
