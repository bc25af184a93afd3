/**
 * The release's windows-amd64 executables, run as a Windows user runs them, under Wine
 * (test/helpers/wine.ts: a Windows 10 prefix, and each thing Wine needs beyond Windows, named):
 * - `cws.exe serve` answers /healthz and /v3, keeps its state in a `--data-dir` given as a Windows
 *   path across being killed (as Task Manager ends it), writes its files and compile cache under
 *   `%LOCALAPPDATA%\pulumi-cws`, says in one line that sandboxes need Linux, and stops on Ctrl-C;
 * - `terraform-provider-cws_v<version>.exe` prints go-plugin's handshake line;
 * - `pulumi-resource-cws.exe` prints its port and answers GetPluginInfo and GetSchema with the
 *   release's schema;
 * - OpenTofu's Windows build (tofu.exe, scripts/toolchain/tofu.ts) installs the provider from the
 *   release's filesystem mirror and runs init, apply, a clean plan and destroy through it against
 *   `cws.exe serve`;
 * - the Pulumi CLI and YAML host built for Windows (pulumi.exe, scripts/toolchain/pulumi.ts) install
 *   `pulumi-resource-cws.exe` from the release's archive and run a YAML project's up, a clean
 *   preview and destroy through it against `cws.exe serve`.
 * The release (scripts/release/cached.ts), tofu.exe, pulumi.exe and the prefix are cached in
 * ~/.cache/pulumi-cws: a warm run takes about two minutes. `npm run test:windows` runs it alone.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginClient, pluginIdentity } from "../../helpers/plugin-grpc.ts";
import { CwsClient } from "../../../client/index.ts";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../../provider/opentofu/serve.ts";
import { cachedRelease } from "../../../scripts/release/cached.ts";
import { platformNamed } from "../../../scripts/release/platforms.ts";
import {
  cwsArchiveName,
  providerExecutableName,
  pulumiArchiveName,
} from "../../../scripts/release/release.ts";
import { zipEntries } from "../../../scripts/release/reproducible.ts";
import { zipName } from "../../../scripts/release/terraform-assets.ts";
import { run } from "../../../scripts/run.ts";
import { logTo } from "../../../scripts/toolchain/log.ts";
import { ensureWindowsPulumi } from "../../../scripts/toolchain/pulumi.ts";
import { ensureWindowsTofu } from "../../../scripts/toolchain/tofu.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { releaseHcl, VERSION } from "../../helpers/release.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import {
  ensureWine,
  startUnderWine,
  stopWine,
  wineMissing,
  windowsPath,
  type Wine,
  type WineProcess,
} from "../../helpers/wine.ts";

const WINDOWS = platformNamed("windows-amd64");
const log = (line: string) => console.error(`[windows] ${line}`);
/** A start of a Node executable under Wine: about a second warm, several cold on a busy machine. */
const START_MS = 60_000;

describe("the Windows executables under Wine", () => {
  let root: string;
  let release: string;
  let wine: Wine;
  let exe: { cws: string; plugin: string; provider: string };
  let server: WineProcess | undefined;
  let baseUrl: string;
  const dataDir = () => join(root, "data");
  const started: WineProcess[] = [];
  const start = (file: string, args: string[], env: Record<string, string> = {}, cwd = root) => {
    const p = startUnderWine(wine, file, args, { cwd, env, outputDir: join(root, "output") });
    started.push(p);
    return p;
  };

  /** `cws.exe serve` on a free port with its state in dataDir(), given as a Windows path. */
  async function serve(): Promise<void> {
    server = start(exe.cws, ["serve", "--port", "0", "--data-dir", windowsPath(dataDir())]);
    baseUrl = (await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/v3)/, START_MS))[1]!;
  }

  beforeAll(async () => {
    const missing = wineMissing();
    if (missing) throw new Error(missing);
    const t0 = Date.now();
    root = mkdtempSync(join(tmpdir(), "cws-windows-"));
    mkdirSync(join(root, "output"));
    release = await cachedRelease([WINDOWS], log);
    wine = await ensureWine(root, log);
    const bin = join(root, "bin");
    mkdirSync(bin);
    await run("tar", ["-xzf", join(release, cwsArchiveName(VERSION, WINDOWS)), "-C", bin]);
    await run("tar", ["-xzf", join(release, pulumiArchiveName(VERSION, WINDOWS)), "-C", bin]);
    const [entry] = zipEntries(readFileSync(join(release, zipName(VERSION, "windows", "amd64"))));
    writeFileSync(join(bin, entry!.name), entry!.data);
    exe = {
      cws: join(bin, "cws.exe"),
      plugin: join(bin, "pulumi-resource-cws.exe"),
      provider: join(bin, providerExecutableName(VERSION, WINDOWS)),
    };
    // As on a machine that never ran them: no files or compile cache of theirs yet.
    rmSync(join(wine.localAppData, "pulumi-cws"), { recursive: true, force: true });
    log(`ready in ${Math.round((Date.now() - t0) / 1000)} s`);
    await serve();
  }, 1_800_000);

  afterAll(async () => {
    for (const p of started) p.kill("SIGKILL");
    if (wine) await stopWine(wine);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it(
    "cws.exe serve answers /healthz and /v3, from its files and compile cache under %LOCALAPPDATA%",
    { timeout: 180_000 },
    async () => {
      const health = await fetch(baseUrl.replace(/\/v3$/, "/healthz"));
      expect(health.status).toBe(200);
      const client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
      expect((await client.meta.regions()).length).toBeGreaterThan(0);
      expect(await client.sshKeys.list()).toHaveProperty("items");
      // The cws command as a client of the service, from Windows.
      const adopt = start(exe.cws, ["adopt", "--format", "pulumi", "--url", baseUrl, "--org", "demo"], {
        CWS_API_TOKEN: DEMO_TOKEN,
      });
      expect(await adopt.exited, adopt.stderr()).toBe(0);
      expect(JSON.parse(adopt.stdout())).toHaveProperty("resources");

      const cache = join(wine.localAppData, "pulumi-cws");
      const builds = readdirSync(join(cache, "executable-files"));
      expect(builds).toHaveLength(1);
      expect(existsSync(join(cache, "executable-files", builds[0]!, ".complete"))).toBe(true);
      expect(existsSync(join(cache, "executable-files", builds[0]!, "code", "cws.cjs"))).toBe(true);
      // Node writes its compile cache once the code is loaded.
      expect(readdirSync(join(cache, "compile-cache")).length).toBeGreaterThan(0);
    },
  );

  it(
    "keeps its state in a Windows --data-dir across being killed, and says in one line that sandboxes need Linux",
    { timeout: 180_000 },
    async () => {
      let client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
      const key = await client.sshKeys.create({ name: "windows-kept", ssh_key: sshKey(41, "windows-kept") });
      // Ended as Task Manager or a service manager ends a process: no signal it can handle.
      server!.kill("SIGKILL");
      await server!.exited;
      await serve();
      client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
      expect((await client.sshKeys.get(key.uid)).name).toBe("windows-kept");
      expect(readdirSync(dataDir()).length).toBeGreaterThan(0);

      const box = await client.workloads.create({
        type: "SANDBOX",
        name: "windows-box",
        image: "tpl-ubuntu-headless",
      });
      const refused = await client.workloads.deploy(box.uid).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(refused).toMatch(/sandboxes need Linux \(bubblewrap\); this server runs on win32/);
      await client.workloads.delete(box.uid);
      await client.sshKeys.delete(key.uid);
      expect(server!.stderr()).not.toMatch(/^\s+at /m);
    },
  );

  it("terraform-provider-cws.exe prints go-plugin's handshake line", { timeout: 120_000 }, async () => {
    const p = start(exe.provider, [], {
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: "6",
    });
    const [line] = await p.waitFor(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\r?\n/m, START_MS);
    // One line, ended as Node ends it on Windows too (go-plugin trims either ending).
    expect(line).toMatch(/\|grpc\n$/);
    p.kill("SIGKILL");
  });

  it(
    "pulumi-resource-cws.exe prints its port and answers GetPluginInfo and GetSchema",
    { timeout: 120_000 },
    async () => {
      const p = start(exe.plugin, []);
      const port = (await p.waitFor(/^(\d+)\r?\n/m, START_MS))[1]!;
      const client = pluginClient(port);
      try {
        const { version, schema } = await pluginIdentity(client);
        expect(version).toBe(VERSION);
        expect(schema).toEqual(JSON.parse(readFileSync(join(release, "schema.json"), "utf8")));
      } finally {
        client.close();
        p.kill("SIGKILL");
      }
    },
  );

  it(
    "tofu.exe installs the provider from the release's filesystem mirror; init, apply, a clean plan, destroy, of CRLF files",
    { timeout: 3_600_000 },
    async () => {
      // Cross-compiled from the Go module proxy when missing (scripts/setup-tests.sh builds it).
      const tofu = await ensureWindowsTofu(undefined, log);
      const dir = join(root, "tofu");
      mkdirSync(dir);
      // Written as a Windows editor and git's autocrlf leave them: CRLF line endings, the key's
      // file included (read with file(), its line ending and all).
      const crlf = (text: string) => text.replaceAll("\n", "\r\n");
      writeFileSync(join(dir, "deploy.pub"), crlf(`${sshKey(42, "windows-tofu")}\n`));
      writeFileSync(join(dir, "main.tf"), crlf(releaseHcl("windows-tofu", 'file("deploy.pub")')));
      // A Windows path in the CLI configuration, with forward slashes as HCL strings take them.
      const mirror = windowsPath(join(release, "filesystem-mirror")).replaceAll("\\", "/");
      const hosts = `"registry.opentofu.org/cws/*"`;
      writeFileSync(
        join(dir, "tofu.rc"),
        `provider_installation {\n  filesystem_mirror {\n    path    = "${mirror}"\n    include = [${hosts}]\n  }\n  direct {\n    exclude = [${hosts}]\n  }\n}\n`,
      );
      const env = {
        TF_CLI_CONFIG_FILE: windowsPath(join(dir, "tofu.rc")),
        TF_IN_AUTOMATION: "1",
        TF_INPUT: "0",
        CHECKPOINT_DISABLE: "1",
        CWS_BASE_URL: baseUrl,
        CWS_ORG: "demo",
        CWS_API_TOKEN: DEMO_TOKEN,
      };
      const client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
      const names = async () => (await client.sshKeys.list()).items.map((k) => k.name);
      const tofuRun = async (...args: string[]) => {
        const t = Date.now();
        const p = start(tofu, [...args, "-no-color"], env, dir);
        const code = await p.exited;
        log(`tofu ${args[0]}: exit ${code} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
        return { code, output: p.stdout() + p.stderr() };
      };

      const init = await tofuRun("init");
      expect(init.code, init.output).toBe(0);
      expect(init.output).toContain(`Installed cws/cws v${VERSION}`);
      const apply = await tofuRun("apply", "-auto-approve");
      expect(apply.code, apply.output).toBe(0);
      expect(apply.output).toMatch(/Apply complete! Resources: 1 added/);
      expect(apply.output).toMatch(/regions = 2/);
      expect(await names()).toContain("windows-tofu");
      const plan = await tofuRun("plan", "-detailed-exitcode");
      expect(plan.code, plan.output).toBe(0);
      expect(plan.output).toContain("No changes.");
      const destroy = await tofuRun("destroy", "-auto-approve");
      expect(destroy.code, destroy.output).toBe(0);
      expect(destroy.output).toMatch(/Destroy complete! Resources: 1 destroyed/);
      expect(await names()).not.toContain("windows-tofu");
    },
  );

  it(
    "pulumi.exe and its YAML host run a project through pulumi-resource-cws.exe: plugin install --file, up, a preview with no changes, destroy",
    { timeout: 3_600_000 },
    async () => {
      // Cross-compiled from the Go module proxy when missing (scripts/setup-windows.sh builds it).
      const cli = join(await ensureWindowsPulumi(logTo("pulumi")), "bin");
      const dir = join(root, "pulumi");
      mkdirSync(join(dir, "home"), { recursive: true });
      mkdirSync(join(dir, "backend"));
      mkdirSync(join(dir, "project"));
      writeFileSync(
        join(dir, "project", "Pulumi.yaml"),
        `name: windows-yaml\r\nruntime: yaml\r\nresources:\r\n  deploy:\r\n    type: cws:SshKey\r\n    properties:\r\n      name: windows-yaml\r\n      publicKey: ${sshKey(43, "windows-yaml")}\r\noutputs:\r\n  keyUid: \${deploy.uid}\r\n`,
      );
      // The YAML host is found beside pulumi.exe, as in Pulumi's Windows archive.
      const env = {
        PULUMI_HOME: windowsPath(join(dir, "home")),
        PULUMI_BACKEND_URL: `file://${windowsPath(join(dir, "backend")).replaceAll("\\", "/")}`,
        PULUMI_CONFIG_PASSPHRASE: "windows-test",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        CWS_BASE_URL: baseUrl,
        CWS_ORG: "demo",
        CWS_API_TOKEN: DEMO_TOKEN,
      };
      const pulumi = async (...args: string[]) => {
        const t = Date.now();
        const p = start(
          join(cli, "pulumi.exe"),
          [...args, "--non-interactive", "--color", "never"],
          env,
          join(dir, "project"),
        );
        const code = await p.exited;
        log(`pulumi ${args[0]}: exit ${code} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
        const output = p.stdout() + p.stderr();
        expect(code, output).toBe(0);
        return output;
      };
      const client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
      const names = async () => (await client.sshKeys.list()).items.map((k) => k.name);

      const archive = windowsPath(join(release, pulumiArchiveName(VERSION, WINDOWS)));
      await pulumi("plugin", "install", "resource", "cws", VERSION, "--file", archive);
      expect(
        existsSync(join(dir, "home", "plugins", `resource-cws-v${VERSION}`, "pulumi-resource-cws.exe")),
      ).toBe(true);
      await pulumi("stack", "init", "dev");
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up).toMatch(/\+ 2 created/);
      expect(await names()).toContain("windows-yaml");
      await pulumi("preview", "--expect-no-changes");
      await pulumi("destroy", "--yes", "--skip-preview");
      expect(await names()).not.toContain("windows-yaml");
    },
  );

  it("cws.exe serve stops on Ctrl-C", { timeout: 120_000 }, async () => {
    // Wine turns SIGINT into the console's Ctrl-C event, which Node reports as SIGINT.
    server!.kill("SIGINT");
    expect(await server!.exited).toBe(0);
    expect(server!.stderr()).toContain("cws: SIGINT, shutting down");
  });
});
