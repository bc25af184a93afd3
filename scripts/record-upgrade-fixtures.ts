/**
 * `npm run record-upgrade-fixtures [-- --force]`: records the upgrade set of this version (the
 * package's) under test/fixtures/upgrade/<version>/, for each front end (dynamic, native):
 *   program.ts or Pulumi.yaml   the program (copied from test/upgrade/programs/<front end>/)
 *   Pulumi.dev.yaml             the stack's config file (its secrets' salt, its config)
 *   state.json                  `pulumi stack export` after `pulumi up`
 *   data/                       the reference server's data dir that matches the state
 * The upgrade test (test/e2e/pulumi/upgrade.test.ts) replays every recorded version with the current
 * provider and server. A released version's set never changes: the script refuses to overwrite
 * one unless given --force (for a version not yet released).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../server/index.ts";
import { REPO_ROOT } from "./repo-root.ts";
import {
  CONFIG_FILE,
  PROGRAM,
  RECORDED_SECRETS,
  UPGRADE_FRONT_ENDS,
  upgradeStack,
  type FrontEndName,
} from "./upgrade-stacks.ts";

const TOKEN = "demo-token";

const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const out = join(REPO_ROOT, "test", "fixtures", "upgrade", version);
const log = (m: string) => process.stderr.write(`record-upgrade-fixtures: ${m}\n`);

async function api<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

async function record(frontEnd: FrontEndName): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cws-record-data-"));
  const sandboxRoot = mkdtempSync(join(tmpdir(), "cws-record-sandboxes-"));
  const server = await startServer({ port: 0, dataDir, sandboxRoot, provisionDelayMs: 50 });
  const programDir = join(REPO_ROOT, "test", "upgrade", "programs", frontEnd);
  const stack = await upgradeStack(frontEnd, programDir, server.baseUrl, TOKEN);
  try {
    // The workload the program takes over (adoptUid, or the import option).
    const made = await api<{ uid: string }>(server.baseUrl, "POST", "/orgs/demo/workloads", {
      type: "RENTAL",
      name: frontEnd === "dynamic" ? "upgrade-adopted" : "upgrade-imported",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
      ports: [{ port: 8080 }],
    });
    await api(server.baseUrl, "POST", `/orgs/demo/workloads/${made.uid}/deploy`);
    const program = join(stack.projectDir, PROGRAM[frontEnd]);
    if (frontEnd === "dynamic") await stack.pulumi("config", "set", "importUid", made.uid);
    else writeFileSync(program, readFileSync(program, "utf8").replace('"@importUid"', made.uid));
    await stack.pulumi("config", "set", "release", "v1");
    for (const [k, v] of Object.entries(RECORDED_SECRETS))
      await stack.pulumi("config", "set", "--secret", k, v);
    log(`${frontEnd}: pulumi up`);
    await stack.pulumi("up", "--yes", "--skip-preview");
    await stack.pulumi("preview", "--expect-no-changes");
    const state = await stack.pulumi("stack", "export");

    const dir = join(out, frontEnd);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(
      frontEnd === "dynamic" ? join(programDir, PROGRAM.dynamic) : program,
      join(dir, PROGRAM[frontEnd]),
    );
    writeFileSync(join(dir, "state.json"), state);
    cpSync(join(stack.projectDir, CONFIG_FILE), join(dir, CONFIG_FILE));
    await server.close();
    cpSync(dataDir, join(dir, "data"), { recursive: true });
    log(`${frontEnd}: recorded in ${dir}`);
  } finally {
    await server.close();
    await stack.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sandboxRoot, { recursive: true, force: true });
  }
}

if (existsSync(out) && !process.argv.includes("--force")) {
  log(`${out} exists: the recorded set of a released version never changes (--force for an unreleased one)`);
  process.exit(1);
}
for (const fe of UPGRADE_FRONT_ENDS) await record(fe);
