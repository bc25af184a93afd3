/**
 * The package as a user meets it: `npm pack`, the tarball installed into an empty project (its
 * own node_modules, nothing linked to this checkout), then the installed `cws serve`, a Pulumi
 * program deployed by the real engine, and the type declarations, on the lowest Node that
 * package.json's `engines` allows and on this one. One pack and one install serve every case.
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSPHRASE } from "../../../scripts/offline-stack.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess } from "../../../scripts/run.ts";
import { pulumiRoot, pulumiVersion } from "../../../scripts/toolchain/pulumi.ts";
import { tofuPath } from "../../../scripts/toolchain/tofu.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
const LOWEST_NODE = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
const FIXTURES = join(import.meta.dirname, "npm-project");
/** The resource kinds examples/rental-service declares. */
const KINDS = ["SshKey", "Volume", "Workload"];
/** The type token of a kind in state, per front end. */
const TYPE_PREFIX = { dynamic: "pulumi-nodejs:dynamic/cws:", native: "cws:index:" } as const;
const versionIn = (name: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")).version as string;

/**
 * The environment of a user's shell: `nodeBin` first on PATH, then `path`, then the Pulumi CLI; nothing that
 * points into this checkout (its node_modules/.bin, NODE_OPTIONS conditions, npm's per-script
 * variables).
 */
function userEnv(
  nodeBin: string,
  path: string[] = [],
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "NODE_OPTIONS" || k === "NODE_PATH" || k === "INIT_CWD" || k.startsWith("VITEST")) continue;
    if (
      k.startsWith("npm_") &&
      !["npm_config_cache", "npm_config_registry", "npm_config_userconfig"].includes(k)
    )
      continue;
    env[k] = v;
  }
  const rest = (process.env.PATH ?? "").split(delimiter).filter((d) => d && !d.startsWith(REPO_ROOT));
  env.PATH = [nodeBin, ...path, join(pulumiRoot(), "bin"), ...rest].join(delimiter);
  return { ...env, ...extra };
}

interface Served {
  child: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/** `cws serve` from the project's node_modules/.bin, with `nodeBin` first on PATH. */
function serve(project: string, nodeBin: string): Promise<Served> {
  const child = spawn(
    join(project, "node_modules", ".bin", "cws"),
    ["serve", "--port", "0", "--provision-delay-ms", "20", "--quiet"],
    { cwd: project, env: userEnv(nodeBin), stdio: ["ignore", "ignore", "pipe"] },
  );
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr!.on("data", (d) => {
      stderr += d;
      const m = /listening on (http:\/\/[^/\s]+)\/v3/.exec(stderr);
      if (m) resolve({ child, origin: m[1], stop });
    });
    child.on("exit", (code) => reject(new Error(`cws serve exited ${code}: ${stderr}`)));
  });
}

describe("the packed package, installed into an empty project", () => {
  let dir: string;
  let project: string;
  let files: string[];
  let lowestBin: string;
  const currentBin = dirname(process.execPath);
  let server: Served;

  beforeAll(async () => {
    if (!LOWEST_NODE) throw new Error(`engines.node must read ">=X.Y.Z" (got ${pkg.engines.node})`);
    dir = mkdtempSync(join(tmpdir(), "cws-package-"));
    project = join(dir, "project");
    mkdirSync(join(project, "rental-service"), { recursive: true });

    // `npm pack` runs `prepack`, i.e. the build.
    const packed = await runProcess("npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: REPO_ROOT,
      env: process.env,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    files = info.files.map((f) => f.path);

    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "cws-user-project",
        private: true,
        type: "module",
        dependencies: { "pulumi-cws": `file:${join(dir, info.filename)}`, "@pulumi/pulumi": pulumiVersion() },
        devDependencies: { typescript: versionIn("typescript"), "@types/node": versionIn("@types/node") },
      }),
    );
    copyFileSync(
      join(REPO_ROOT, "examples", "rental-service", "index.ts"),
      join(project, "rental-service", "index.ts"),
    );
    for (const f of ["deploy.ts", "typed.ts"]) copyFileSync(join(FIXTURES, f), join(project, f));
    // The same example on the native plugin: only the import changes.
    const example = readFileSync(join(project, "rental-service", "index.ts"), "utf8");
    const native = example.replace('from "pulumi-cws/sdk";', 'from "pulumi-cws/sdk/native";');
    expect(native).not.toBe(example);
    mkdirSync(join(project, "rental-service-native"));
    writeFileSync(join(project, "rental-service-native", "index.ts"), native);

    // The project's install and the lowest supported Node (an npm package of the Node binary).
    const npmFlags = ["--prefer-offline", "--no-audit", "--no-fund"];
    const lowestDir = join(dir, "node-lowest");
    mkdirSync(lowestDir);
    const nodePackage = `node-${process.platform}-${process.arch}`;
    await Promise.all([
      runProcess("npm", ["install", ...npmFlags], { cwd: project, env: userEnv(currentBin) }),
      runProcess("npm", ["install", ...npmFlags, "--no-save", `${nodePackage}@${LOWEST_NODE}`], {
        cwd: lowestDir,
        env: userEnv(currentBin),
      }),
    ]);
    lowestBin = join(lowestDir, "node_modules", nodePackage, "bin");
    const v = await runProcess(join(lowestBin, "node"), ["--version"], { cwd: dir, env: userEnv(lowestBin) });
    expect(v.stdout.trim()).toBe(`v${LOWEST_NODE}`);

    server = await serve(project, lowestBin);
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the tarball holds the compiled package and none of the checkout's development files", () => {
    for (const f of files) expect(f).toMatch(/^(package\.json|README\.md|bin\/|dist\/|docs\/|policy-pack\/)/);
    expect(files.filter((f) => /\.ts$/.test(f) && !/\.d\.ts$/.test(f))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/cws",
        "bin/pulumi-resource-cws",
        "bin/terraform-provider-cws",
        "dist/provider/native/main.js",
        "dist/provider/native/pulumi-resource-cws.js",
        "dist/provider/native/pulumi-resource-cws-main.js",
        "dist/provider/opentofu/main.js",
        "dist/provider/opentofu/terraform-provider-cws.js",
        "dist/provider/opentofu/terraform-provider-cws-main.js",
        "dist/provider/opentofu/vendor/tfplugin6.proto",
        "dist/provider/opentofu/vendor/protocol.json",
        "dist/sdk/native/index.d.ts",
        "dist/schema.json",
        "dist/sdk/index.js",
        "dist/sdk/index.d.ts",
        "dist/client/index.d.ts",
        "dist/cli/cws.js",
        "dist/provider/dynamic.js",
        "dist/dynamic/provider/dynamic/adapter.js",
        "dist/dynamic/client/client.js",
        "dist/server/sandbox/runtime/agent.mts",
        "dist/server/dashboard/public/index.html",
        "dist/provider/policy/pack.js",
        "dist/provider/policy/command.js",
        "policy-pack/PulumiPolicy.yaml",
        "policy-pack/package.json",
        "policy-pack/index.js",
        "policy-pack/start.cjs",
        "policy-pack/cws-policy-pack",
      ]),
    );
    // Installed as a copy of the tarball, not a link to this checkout.
    const installed = join(project, "node_modules", "pulumi-cws");
    expect(lstatSync(installed).isDirectory()).toBe(true);
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
  });

  it("runs as OpenTofu's provider from the installed package (dev_overrides on node_modules/.bin)", async () => {
    const tf = join(dir, "tofu-project");
    mkdirSync(tf);
    writeFileSync(
      join(tf, "main.tf"),
      `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}\n\n` +
        `data "cws_regions" "active" {\n  active_only = true\n}\n\n` +
        `resource "cws_volume" "data" {\n  name          = "data"\n  size_in_mb    = 256\n  resource_name = "gpu-rental-small"\n}\n`,
    );
    const rc = join(dir, "tofu.rc");
    const overrides = join(project, "node_modules", ".bin");
    writeFileSync(
      rc,
      `provider_installation {\n  dev_overrides {\n    "registry.opentofu.org/cws/cws" = "${overrides}"\n  }\n  direct {}\n}\n`,
    );
    const env = {
      ...userEnv(currentBin),
      TF_CLI_CONFIG_FILE: rc,
      CHECKPOINT_DISABLE: "1",
      CWS_BASE_URL: `${server.origin}/v3`,
      CWS_ORG: "demo",
      CWS_API_TOKEN: DEMO_TOKEN,
    };
    const r = await runProcess(tofuPath(), ["plan", "-no-color"], { cwd: tf, env });
    expect(r.stdout).toMatch(/data\.cws_regions\.active: Read complete/);
    expect(r.stdout).toMatch(/Plan: 1 to add, 0 to change, 0 to destroy/);
  });

  it("the installed dynamic provider runs from its bundle, with zod, undici and ws inside it", async () => {
    // What the engine's provider process does: load the provider by name, check, then read.
    const probe = `
      import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ resolve(s, c, next) { const r = next(s, c); loaded.push(r.url); return r; } });
      const { provider } = await import("pulumi-cws/provider/dynamic");
      const volume = provider("Volume");
      const config = { "cws:baseUrl": process.argv[1], "cws:org": "demo", "cws:apiToken": process.argv[2] };
      await volume.configure({ config: { get: (k) => config[k] } });
      const checked = await volume.check({}, { name: "v", sizeInMb: 512, resourceName: "gpu-rental-small" });
      const read = await volume.read("vol-missing", {});
      process.stdout.write(JSON.stringify({ loaded, failures: checked.failures, readId: read.id }));`;
    const r = await runProcess(
      join(currentBin, "node"),
      ["--input-type=module", "-e", probe, `${server.origin}/v3`, DEMO_TOKEN],
      { cwd: project, env: userEnv(currentBin) },
    );
    const out = JSON.parse(r.stdout) as { loaded: string[]; failures: unknown[]; readId: string };
    expect(out.failures).toEqual([]);
    expect(out.readId).toBe(""); // gone: the read reached the server through the bundled client
    const pkgDir = `${pathToFileURL(join(project, "node_modules", "pulumi-cws")).href}/`;
    const ours = out.loaded.filter((u) => u.startsWith(pkgDir)).map((u) => u.slice(pkgDir.length));
    expect(ours).toEqual(
      expect.arrayContaining(["dist/dynamic/provider/dynamic/adapter.js", "dist/dynamic/client/client.js"]),
    );
    // Beside the bundle, only the entry and its loader; no compiled module, no dependency.
    const outside = ours.filter((f) => !f.startsWith("dist/dynamic/"));
    expect([...new Set(outside)].sort()).toEqual([
      "dist/provider/dynamic.js",
      "dist/provider/dynamic/load.js",
    ]);
    expect(out.loaded.filter((u) => /\/node_modules\/(zod|undici|ws)\//.test(u))).toEqual([]);
  });

  it(`the installed cws serve answers /healthz on Node ${LOWEST_NODE} and on this Node`, async () => {
    const current = await serve(project, currentBin);
    try {
      for (const [s, bin] of [
        [server, lowestBin],
        [current, currentBin],
      ] as const) {
        expect(readlinkSync(`/proc/${s.child.pid}/exe`)).toBe(join(bin, "node"));
        const health = await fetch(`${s.origin}/healthz`);
        expect(health.status).toBe(200);
        const version = (await (await fetch(`${s.origin}/version`)).json()) as { version: string };
        expect(version.version).toBe(pkg.version);
        // The dashboard's page: a file the build copies beside the compiled server.
        const page = await fetch(`${s.origin}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toMatch(/<html/i);
      }
    } finally {
      await current.stop();
    }
  });

  it(`a sandbox on the installed server (Node ${LOWEST_NODE}) runs a command: its agent ships with the package`, async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.origin}/v3/orgs/demo${path}`, {
        method,
        headers: { authorization: `Bearer ${DEMO_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.ok, `${method} ${path}: ${res.status} ${text}`).toBe(true);
      return text ? JSON.parse(text) : undefined;
    };
    const { uid } = await call("POST", "/workloads", {
      type: "SANDBOX",
      name: "pkg-box",
      image: "tpl-ubuntu-headless",
    });
    await call("POST", `/workloads/${uid}/deploy`);
    const deadline = Date.now() + 60_000;
    while ((await call("GET", `/workloads/${uid}/state`)).status !== "running") {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await call("POST", `/workloads/${uid}/exec`, {
      cmd: "echo $((6 * 7))",
      timeout_sec: 30,
    });
    expect(r).toMatchObject({ code: 0, stdout: "42\n" });
    await call("DELETE", `/workloads/${uid}`);
  }, 120_000);

  /** Each way a user runs examples/rental-service: front end, Node, program file in the project. */
  const DEPLOYS = [
    { frontEnd: "dynamic", node: "lowest", program: "rental-service/index.ts" },
    { frontEnd: "dynamic", node: "current", program: "rental-service/index.ts" },
    { frontEnd: "native", node: "lowest", program: "rental-service-native/index.ts" },
    { frontEnd: "native", node: "current", program: "rental-service-native/index.ts" },
  ] as const;

  for (const [i, d] of DEPLOYS.entries()) {
    it(`deploys, previews with no changes and destroys examples/rental-service through the ${d.frontEnd} provider on the ${d.node} Node`, async () => {
      const bin = d.node === "lowest" ? lowestBin : currentBin;
      // The native plugin: the installed `pulumi-resource-cws`, found by the engine on PATH.
      const path = d.frontEnd === "native" ? [join(project, "node_modules", ".bin")] : [];
      const env = userEnv(bin, path, {
        PULUMI_ROOT: pulumiRoot(),
        PULUMI_HOME: join(dir, "pulumi-home"),
        PULUMI_BACKEND_URL: `file://${join(dir, "pulumi-state")}`,
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      });
      mkdirSync(join(dir, "pulumi-state"), { recursive: true });
      // Node < 22.18 runs TypeScript only when asked to.
      const flags = d.node === "lowest" ? ["--experimental-strip-types", "--no-warnings"] : [];
      const out = await runProcess(
        join(bin, "node"),
        [...flags, "deploy.ts", d.program, `stack-${i}`, `${server.origin}/v3`, "demo", DEMO_TOKEN],
        { cwd: project, env },
      );
      const summary = out.stdout.trim().split("\n").at(-1) ?? "";
      if (!summary.startsWith("{"))
        throw new Error(`deploy.ts printed no summary:\n${out.stdout}\n${out.stderr}`);
      const r = JSON.parse(summary);
      expect(r.programNode).toBe(d.node === "lowest" ? `v${LOWEST_NODE}` : process.version);
      expect(r.up.result).toBe("succeeded");
      expect(r.up.changes).toEqual({ create: 4 });
      expect(r.up.types.filter((t: string) => !t.startsWith("pulumi:"))).toEqual(
        KINDS.map((k) => TYPE_PREFIX[d.frontEnd] + k),
      );
      expect(r.up.outputs).toMatchObject({ status: "running", volumeStatus: expect.any(String) });
      expect(r.preview).toEqual({ same: 4 });
      expect(r.destroy).toEqual({ result: "succeeded", changes: { delete: 4 } });
      const live = await fetch(`${server.origin}/admin/orgs/demo/resources`, {
        headers: { authorization: "Bearer admin-token" },
      });
      expect(await live.json()).toEqual({
        workloads: [],
        volumes: [],
        ssh_keys: [],
        templates: [],
        sandbox_templates: [],
      });
    }, 300_000);
  }

  it("a strict TypeScript program type-checks against the installed declarations; a wrong input fails", async () => {
    // typed.ts and the example as they are, and a copy of typed.ts with a size given as a string.
    const source = readFileSync(join(project, "typed.ts"), "utf8");
    const wrong = source.replace("sizeInMb: 1024", 'sizeInMb: "1 GiB"');
    expect(wrong).not.toBe(source);
    writeFileSync(join(project, "wrong.ts"), wrong);
    const line = wrong.split("\n").findIndex((l) => l.includes('sizeInMb: "1 GiB"')) + 1;
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2023",
          module: "nodenext",
          moduleResolution: "nodenext",
          types: ["node"],
          skipLibCheck: false,
        },
        files: ["typed.ts", "rental-service/index.ts", "rental-service-native/index.ts", "wrong.ts"],
      }),
    );
    const tsc = join(project, "node_modules", ".bin", "tsc");
    const r = await runProcess(tsc, ["--noEmit", "--strict", "-p", "tsconfig.json"], {
      cwd: project,
      env: userEnv(currentBin),
      allowFailure: true,
    });
    expect(r.code).not.toBe(0);
    // The one error is the wrong input: the declarations, typed.ts and both examples are clean.
    const errors = r.stdout.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^wrong\\.ts\\(${line},\\d+\\): error TS2322: Type 'string' is not assignable to type 'Input<number>'`,
      ),
    );
  }, 180_000);
});
