/**
 * examples/pulumi-test/web.test.ts, the integration test a Pulumi user writes, run as its user
 * runs it: its own server in the process, a snapshot restored before each test, `up` through the
 * Automation API. Here the engine is this checkout's, kept offline (PULUMI_HOME in a temporary
 * directory, no update checks or plugin downloads), and `pulumi-cws` resolves to the sources.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { engineNodeOptions, offlineEnv, pulumiCommand } from "../../../scripts/offline-stack.ts";

await pulumiCommand();
const dir = mkdtempSync(join(tmpdir(), "cws-pulumi-test-"));
// The example's stacks keep their state where their project settings say, not in one backend.
const { PULUMI_BACKEND_URL: _shared, ...env } = offlineEnv(join(dir, "state"), join(dir, "home"));
Object.assign(process.env, env, {
  NODE_OPTIONS: engineNodeOptions(),
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

await import("../../../examples/pulumi-test/web.test.ts");
