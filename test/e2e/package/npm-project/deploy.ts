/**
 * A user's deployment script, copied into the temp project of test/e2e/package/npm-package.test.ts and run
 * there with the packages installed in that project (never the checkout's): deploys a Pulumi
 * program through the Automation API on an offline backend, previews it, destroys it, and
 * prints a JSON summary on stdout.
 *
 * Usage: node deploy.ts PROGRAM_FILE STACK BASE_URL ORG TOKEN
 * Environment: PULUMI_ROOT (the CLI is PULUMI_ROOT/bin/pulumi), PULUMI_BACKEND_URL, PULUMI_HOME,
 * PULUMI_CONFIG_PASSPHRASE, and a PATH whose first `node` runs the provider processes.
 */
import { LocalWorkspace, PulumiCommand, type PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [programFile, stackName, baseUrl, org, token] = process.argv.slice(2);
if (!token) throw new Error("usage: node deploy.ts PROGRAM_FILE STACK BASE_URL ORG TOKEN");
const root = process.env.PULUMI_ROOT;
const backend = process.env.PULUMI_BACKEND_URL;
if (!root || !backend) throw new Error("PULUMI_ROOT and PULUMI_BACKEND_URL must be set");

// The Automation API handles unhandled rejections itself (a failed `up` would exit 0): report
// failures here.
try {
  const program = ((await import(pathToFileURL(resolve(programFile)).href)) as { default: PulumiFn }).default;
  const stack = await LocalWorkspace.createStack(
    { stackName, projectName: "cws-installed", program },
    {
      workDir: process.cwd(),
      pulumiCommand: await PulumiCommand.get({ root }),
      projectSettings: { name: "cws-installed", runtime: "nodejs", backend: { url: backend } },
    },
  );
  await stack.setAllConfig({
    "cws:baseUrl": { value: baseUrl },
    "cws:org": { value: org },
    "cws:apiToken": { value: token, secret: true },
  });

  const up = await stack.up();
  const outputs = Object.fromEntries(
    Object.entries(up.outputs).map(([k, o]) => [k, o.secret ? "[secret]" : o.value]),
  );
  const deployed = await stack.exportStack();
  const types = (deployed.deployment.resources ?? []).map((r: { type: string }) => r.type).sort();
  const preview = await stack.preview();
  const destroy = await stack.destroy();
  console.log(
    JSON.stringify({
      up: { result: up.summary.result, changes: up.summary.resourceChanges, outputs, types },
      preview: preview.changeSummary,
      destroy: { result: destroy.summary.result, changes: destroy.summary.resourceChanges },
      programNode: process.version,
    }),
  );
} catch (e) {
  console.error(e);
  process.exitCode = 1;
}
