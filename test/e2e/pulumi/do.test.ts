/**
 * `pulumi do` with the 3.276 CLI, as a user runs it against an org made outside Pulumi:
 * - `list` for the six kinds (the List RPC): the same objects as `cws adopt` and `terraform query`
 *   (one list definition per kind), its filters as flags, one page, `--all` and `--count`;
 * - create, read, patch and delete for every kind, stateless (`--package` naming the plugin) and
 *   stateful (a file backend, the plugin installed with `pulumi plugin install --file`);
 * - patch says what the change does as preview does (redeploys, in place) and refuses a change only a
 *   replace can make, naming the property, with nothing changed;
 * - a bad token and an unknown id: a clear error, and nothing made;
 * - docs/day2-pulumi.md run as written.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOrg } from "../../../provider/adopt/inventory.ts";
import { LISTS } from "../../../provider/registry.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess, type RunResult } from "../../../scripts/run.ts";
import { pulumiRoot } from "../../../scripts/toolchain/pulumi.ts";
import { ADOPT_PUBLIC_KEY, clientFor, makeOrgByHand, type HandMadeOrg } from "../../helpers/adopt-org.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { fencedBlocks, outputLinePattern } from "../../helpers/markdown.ts";
import { NATIVE_ENV } from "../../helpers/native.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveObjects, liveResources } from "../../helpers/stacks.ts";

const server = useTestServer({ provisionDelayMs: 10 });
const PLUGIN = join(REPO_ROOT, "bin", "pulumi-resource-cws");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPq0ZlU7cKh1hVbQ5yF2x0Ruv3aXbqzKJ8Zz3xk1r2s0 do@cws";
/** How many SSH keys the org holds beyond a page (native/list.ts's PAGE is 100). */
const KEYS = 105;
const DOC = new URL("../../../docs/day2-pulumi.md", import.meta.url);

let root: string;
let org: HandMadeOrg;
let env: NodeJS.ProcessEnv;

/** `pulumi do ARGS` (asynchronous: the server answers the plugin from this very process). */
function pulumiDo(args: string[], more: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult> {
  return runProcess(join(pulumiRoot(), "bin", "pulumi"), ["do", ...args, "--non-interactive"], {
    env: { ...env, ...more.env },
    cwd: more.cwd ?? root,
    allowFailure: true,
  });
}

const stateless = (kind: string, ...args: string[]) =>
  pulumiDo(["--package", PLUGIN, `cws:${kind}`, ...args, "--stateless"]);

/** `list` (stateless: it needs no backend), parsed. */
async function list(kind: string, ...args: string[]): Promise<{ id: string; name: string }[]> {
  const r = await stateless(kind, "list", ...args);
  expect(r.code, r.output).toBe(0);
  return JSON.parse(r.stdout) as { id: string; name: string }[];
}

/** The object a `create` or `read` printed (`--output json`: the last thing it prints, after a wait's progress). */
function printed(r: RunResult): Record<string, unknown> {
  expect(r.code, r.output).toBe(0);
  return JSON.parse(r.stdout.slice(r.stdout.search(/^\{$/m))) as Record<string, unknown>;
}
const idOf = (r: RunResult) => printed(r).id as string;

/** The object `uid` as the service holds it (any kind). */
async function liveRecord(uid: string): Promise<unknown> {
  const l = await liveResources(server);
  return [...l.workloads, ...l.volumes, ...l.ssh_keys, ...l.templates, ...l.sandbox_templates].find(
    (o) => o.uid === uid,
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "cws-pulumi-do-"));
  env = {
    ...process.env,
    ...NATIVE_ENV,
    PULUMI_HOME: join(root, "home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_CONFIG_PASSPHRASE: "do-test",
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
  };
  writeFileSync(
    join(root, "manifest.pcl"),
    'manifest = {\n  name = "web"\n  image = "nginx:1.27"\n  resourceName = "gpu-rental-small"\n}\n',
  );
  org = await makeOrgByHand(server);
  // The plugin installed as users install it: a folder holding the plugin, by `plugin install --file`.
  const folder = join(root, "plugin");
  mkdirSync(folder);
  writeFileSync(join(folder, "pulumi-resource-cws"), `#!/bin/sh\nexec ${PLUGIN} "$@"\n`);
  chmodSync(join(folder, "pulumi-resource-cws"), 0o755);
  const install = await runProcess(
    join(pulumiRoot(), "bin", "pulumi"),
    ["plugin", "install", "resource", "cws", "0.1.0", "--file", folder],
    { env },
  );
  expect(install.code, install.output).toBe(0);

  const c = clientFor(server);
  for (let i = 0; i < KEYS; i++) await c.sshKeys.create({ name: `bulk-${i}`, ssh_key: ADOPT_PUBLIC_KEY });
}, 300_000);
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("pulumi do ... list", () => {
  it(
    "finds, kind by kind, what cws adopt finds; one page, --all and --count",
    { timeout: 240_000 },
    async () => {
      const adopted = await listOrg(clientFor(server));
      const expected = (kind: string) =>
        adopted.filter((a) => a.kind === kind).map((a) => ({ id: a.uid, name: a.name }));
      const kinds = Object.keys(LISTS);
      const all = await Promise.all(kinds.map((k) => list(k, "--all", "--output", "json")));
      kinds.forEach((k, i) => expect(all[i], k).toEqual(expected(k)));
      expect(all[kinds.indexOf("SshKey")]).toHaveLength(KEYS + 1);

      const [page, counted, rental, sandboxes, volumes, templates] = await Promise.all([
        list("SshKey"),
        list("SshKey", "--count", "103"),
        list("Workload", "--type", "RENTAL", "--status", "running", "--all"),
        list("Sandbox", "--status", "frozen"),
        list("Volume", "--workload-uid", org.web),
        list("WorkloadTemplate", "--type", "VM"),
      ]);
      // One page without --all (the first 100), and --count across two pages (100, then a limit of 3).
      expect(page).toEqual(expected("SshKey").slice(0, 100));
      expect(counted).toEqual(expected("SshKey").slice(0, 103));
      expect(rental).toEqual([{ id: org.web, name: "web" }]);
      expect(sandboxes).toEqual([{ id: org.fromTemplate, name: "review" }]);
      expect(volumes).toEqual([{ id: org.volume, name: "data" }]);
      expect(templates).toEqual([]);

      // The ids are those read takes; a bad filter names the flag's property and its rule.
      const read = await stateless("Workload", "read", org.vm, "--output", "json");
      expect(read.code, read.output).toBe(0);
      expect(JSON.parse(read.stdout)).toMatchObject({ id: org.vm, name: "build-vm", type: "VM" });
      const bad = await stateless("Workload", "list", "--type", "SANDBOX");
      expect(bad.code).not.toBe(0);
      expect(bad.output).toMatch(/type: type must be one of RENTAL, VM, BM/);
    },
  );
});

/** Each kind: what create takes, a change made in place, and (where one is) a change only a replace makes. */
const KINDS: {
  kind: string;
  create: (name: string) => string[];
  inPlace: string[];
  replaceOnly?: [string, string];
}[] = [
  {
    kind: "SshKey",
    create: (n) => ["--name", n, "--public-key", KEY],
    inPlace: ["--name", "renamed"],
    replaceOnly: ["--public-key", ADOPT_PUBLIC_KEY],
  },
  {
    kind: "Volume",
    create: (n) => ["--name", n, "--size-in-mb", "256", "--resource-name", "gpu-rental-small"],
    inPlace: ["--name", "renamed"],
    replaceOnly: ["--size-in-mb", "512"],
  },
  {
    kind: "Workload",
    create: (n) => [
      "--type",
      "RENTAL",
      "--name",
      n,
      "--image",
      "nginx:1.27",
      "--resource-name",
      "gpu-rental-small",
    ],
    inPlace: ["--name", "renamed"],
    replaceOnly: ["--resource-name", "gpu-rental-medium"],
  },
  {
    kind: "Sandbox",
    create: (n) => ["--name", n, "--template", "tpl-ubuntu-headless"],
    inPlace: ["--ttl-sec", "7200"],
  },
  {
    kind: "SandboxTemplate",
    create: (n) => ["--name", n, "--source-sandbox", org.dev],
    inPlace: ["--display-name", "Renamed"],
  },
  {
    kind: "WorkloadTemplate",
    // An object input comes from an input file (here PCL: no converter plugin to install).
    create: (n) => [
      "--name",
      n,
      "--type",
      "RENTAL",
      "--input",
      "pcl",
      "--input-file",
      join(root, "manifest.pcl"),
    ],
    inPlace: ["--description", "renamed"],
  },
];

describe("docs/day2-pulumi.md", () => {
  it("runs as written: find, import, read, patch", { timeout: 240_000 }, async () => {
    const dir = join(root, "day2");
    mkdirSync(dir);
    const docEnv = { ...env, PULUMI_BACKEND_URL: `file://${join(root, "day2-state")}` };
    mkdirSync(join(root, "day2-state"));
    // A block's shell variables (`batch=$(...)`) are there for the blocks after it.
    const assignments: string[] = [];
    const failed: string[] = [];
    let ran = 0;
    let last = "";
    for (const b of fencedBlocks(readFileSync(DOC, "utf8"))) {
      if (b.lang === "yaml") {
        const name = /^# (\S+)\n/.exec(b.text)?.[1];
        if (name) writeFileSync(join(dir, name), b.text);
      } else if (b.lang === "sh") {
        const script = ["set -e", ...assignments, b.text].join("\n");
        const r = await runProcess("sh", ["-c", script], { cwd: dir, env: docEnv, allowFailure: true });
        if (r.code !== 0) failed.push(b.text.trim());
        assignments.push(...b.text.split("\n").filter((l) => /^\w+=\$\(/.test(l)));
        last = r.output.replace(/\s+/g, " ");
        ran++;
      } else if (b.lang === "text") {
        for (const line of b.text.trim().split("\n")) expect(last, line).toMatch(outputLinePattern(line));
      }
    }
    expect(ran).toBe(6);
    // Only the patch the page shows refused fails.
    expect(failed).toEqual([
      'pulumi do cws:Workload patch "$batch" --stateless --resource-name gpu-rental-medium --yes',
    ]);
    const batch = await clientFor(server).workloads.get(org.batch);
    expect([batch.image, batch.resource.name, batch.state.status]).toEqual([
      "busybox:1.37",
      "gpu-rental-small",
      "suspended",
    ]);
  });
});

describe("pulumi do create, read, patch, delete", () => {
  it(
    "stateless, every kind: patch says what it does and refuses a replace, naming the property",
    { timeout: 300_000 },
    async () => {
      await Promise.all(
        KINDS.map(async ({ kind, create, inPlace, replaceOnly }) => {
          const name = `do-${kind.toLowerCase()}`;
          const id = idOf(await stateless(kind, "create", ...create(name), "--yes", "--output", "json"));
          const read = await stateless(kind, "read", id, "--output", "json");
          expect(idOf(read), kind).toBe(id);
          const patched = await stateless(kind, "patch", id, ...inPlace, "--yes");
          expect(patched.code, patched.output).toBe(0);
          expect(patched.output, kind).toMatch(/updated in place, no redeploy/);
          if (replaceOnly) {
            const before = await liveRecord(id);
            const refused = await stateless(kind, "patch", id, ...replaceOnly, "--yes");
            const property = replaceOnly[0].slice(2).replace(/-(.)/g, (_, c: string) => c.toUpperCase());
            expect(refused.output, kind).toContain(`This change replaces the resource (${property}).`);
            expect(refused.output, kind).toContain(`in place: ${property}: changing it replaces the`);
            expect(refused.code, kind).not.toBe(0);
            expect(await liveRecord(id), kind).toEqual(before);
          }
          const deleted = await stateless(kind, "delete", id, "--yes");
          expect(deleted.code, deleted.output).toBe(0);
          const gone = await stateless(kind, "read", id);
          expect(gone.code).not.toBe(0);
          expect(gone.output).toContain(`resource "${id}" was not found`);
        }),
      );
      // A redeploy, said as preview says it.
      const id = idOf(
        await stateless(
          "Workload",
          "create",
          ...KINDS[2]!.create("do-redeploy"),
          "--yes",
          "--output",
          "json",
        ),
      );
      const redeployed = await stateless("Workload", "patch", id, "--image", "nginx:1.28", "--yes");
      expect(redeployed.output).toContain(
        "image changes: the service redeploys workload do-redeploy (restart)",
      );
      expect((await clientFor(server).workloads.get(id)).image).toBe("nginx:1.28");
      await stateless("Workload", "delete", id, "--yes");
    },
  );

  it(
    "stateful, every kind: the plugin installed by name, the objects in a file backend's stack",
    { timeout: 400_000 },
    async () => {
      // Each kind in a stack of its own backend (so they run side by side); the plugin is not on PATH.
      const PATH = env
        .PATH!.split(":")
        .filter((d) => d !== join(REPO_ROOT, "bin"))
        .join(":");
      await Promise.all(
        KINDS.map(async ({ kind, create, inPlace }) => {
          const dir = join(root, `stateful-${kind}`);
          mkdirSync(dir);
          const stateful = (...args: string[]) =>
            pulumiDo([`cws:${kind}`, ...args], {
              cwd: dir,
              env: { PATH, PULUMI_BACKEND_URL: `file://${dir}` },
            });
          const name = `st-${kind.toLowerCase()}`;
          const made = await stateful("create", "it", ...create(name), "--yes");
          expect(made.code, made.output).toBe(0);
          const [uid] = /uid\s*: "([^"]+)"/.exec(made.output)!.slice(1);
          const patched = await stateful("patch", "it", ...inPlace, "--yes");
          expect(patched.code, patched.output).toBe(0);
          expect(patched.output).toMatch(/~ 1 updated/);
          const deleted = await stateful("delete", "it", "--yes");
          expect(deleted.code, deleted.output).toBe(0);
          expect((await liveObjects(server)).has(uid!), kind).toBe(false);
        }),
      );
    },
  );

  it("a bad token or an unknown id: a clear error, and nothing made", { timeout: 120_000 }, async () => {
    const before = await liveObjects(server);
    const [badToken, unknown, badList] = await Promise.all([
      pulumiDo(
        [
          "--package",
          PLUGIN,
          "cws:SshKey",
          "create",
          "--name",
          "nope",
          "--public-key",
          KEY,
          "--stateless",
          "--yes",
        ],
        {
          env: { CWS_API_TOKEN: "not-a-token" },
        },
      ),
      stateless("Workload", "patch", "wl-0000000000000000", "--name", "x", "--yes"),
      pulumiDo(["--package", PLUGIN, "cws:Workload", "list"], { env: { CWS_API_TOKEN: "not-a-token" } }),
    ]);
    expect(badToken.code).not.toBe(0);
    expect(badToken.output).toMatch(/401|token/i);
    expect(unknown.code).not.toBe(0);
    expect(unknown.output).toContain('resource "wl-0000000000000000" was not found');
    expect(badList.code).not.toBe(0);
    expect(badList.output).toMatch(/401|token/i);
    expect(await liveObjects(server)).toEqual(before);
  });
});
