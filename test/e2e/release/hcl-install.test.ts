/**
 * The provider as OpenTofu and Terraform users install it from a release (docs/opentofu.md,
 * docs/releasing.md): the linux-amd64 zip from the packed filesystem mirror and from the network
 * mirror over HTTPS (a test certificate, trusted through SSL_CERT_FILE), on a PATH without `node`
 * and with a fresh HOME, then apply and destroy against the reference server. The lock file is
 * the same from two mirrors in different places; the tool itself refuses a zip that differs by one
 * byte of its executable from a committed lock file or from the mirror's checksums, and says when
 * there is no package for its platform. The provider runs with NODE_EXTRA_CA_CERTS set to the
 * system's CA bundle, as on machines that set it.
 */
import {
  cpSync,
  existsSync,
  linkSync,
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
import { deflated, zip } from "../../../scripts/release/archive.ts";
import { runProcess } from "../../../scripts/run.ts";
import { ensureTerraform, terraformPath } from "../../../scripts/toolchain/terraform.ts";
import { ensureTofu, tofuPath } from "../../../scripts/toolchain/tofu.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import {
  hostRelease,
  localhostCertificate,
  pathWithout,
  releaseHcl,
  serveDirectory,
  VERSION,
  type ServedDirectory,
} from "../../helpers/release.ts";
import { useTestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { planFileEntries } from "../../helpers/tofu.ts";

/** Debian's CA bundle, which machines that set NODE_EXTRA_CA_CERTS point it at. */
const SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

const PLATFORM = "linux_amd64";
const ZIP = `terraform-provider-cws_${VERSION}_${PLATFORM}.zip`;
/** A few init, apply and destroy runs, each starting the provider a few times, on a busy machine. */
const RUN_MS = 240_000;

const TOOLS = [
  {
    name: "OpenTofu",
    host: "registry.opentofu.org",
    command: "tofu",
    path: tofuPath,
    ensure: ensureTofu,
    // OpenTofu records the hashes a network mirror reports (every platform's zip); Terraform only
    // the one it computed of what it installed.
    recordsMirrorHashes: true,
  },
  {
    name: "Terraform",
    host: "registry.terraform.io",
    command: "terraform",
    path: terraformPath,
    ensure: () => ensureTerraform(),
    recordsMirrorHashes: false,
  },
];

/** A packed filesystem mirror holding `zips` (name to file) under `host`, at `dir`. */
function packedMirror(dir: string, host: string, zips: Record<string, string>): string {
  const at = join(dir, host, "cws", "cws");
  mkdirSync(at, { recursive: true });
  for (const [name, file] of Object.entries(zips)) linkSync(file, join(at, name));
  return dir;
}

/** The release's zip with one byte of its executable changed: a valid zip of other contents. */
function tamperedZip(original: string, out: string): string {
  const [[name, exe]] = Object.entries(planFileEntries(original)) as [[string, Buffer]];
  const changed = Buffer.from(exe);
  changed[changed.length >> 1] ^= 0x01;
  writeFileSync(out, zip([deflated(name, changed, 0o755, 1)]));
  return out;
}

for (const tool of TOOLS) {
  describe(`${tool.name} installs the provider from the release`, () => {
    const server = useTestServer();
    let release: string;
    let root: string;
    let bin: string;
    let https: ServedDirectory;
    let cert: ReturnType<typeof localhostCertificate>;
    beforeAll(async () => {
      await tool.ensure();
      release = await hostRelease();
      root = mkdtempSync(join(tmpdir(), `cws-release-${tool.command}-`));
      bin = await pathWithout({ [tool.command]: tool.path() });
      cert = localhostCertificate(join(root, "tls"));
      https = await serveDirectory(join(release, "network-mirror"), cert);
    }, 600_000);
    afterAll(async () => {
      await https?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    /** A working directory with the configuration, and its tool run with `installation` as its CLI configuration. */
    function project(name: string, installation: string) {
      const dir = join(root, name);
      mkdirSync(dir, { recursive: true });
      const key = `${tool.command}-${name}`;
      writeFileSync(join(dir, "main.tf"), releaseHcl(key, `"${sshKey(40, key)}"`));
      const cliConfig = join(root, `${name}.rc`);
      writeFileSync(cliConfig, `provider_installation {\n${installation}\n}\n`);
      const home = join(root, `${name}-home`);
      mkdirSync(home);
      const env = {
        PATH: bin,
        HOME: home,
        TF_CLI_CONFIG_FILE: cliConfig,
        TF_IN_AUTOMATION: "1",
        TF_INPUT: "0",
        CHECKPOINT_DISABLE: "1",
        SSL_CERT_FILE: cert.caFile,
        // What some machines set (this one's CI among them): Node's CA store grown by the system's
        // bundle. The provider's own mutual TLS with the tool must not depend on that store.
        ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
        CWS_BASE_URL: server.baseUrl,
        CWS_ORG: "demo",
        CWS_API_TOKEN: DEMO_TOKEN,
      };
      const run = async (...args: string[]) => {
        const r = await runProcess(tool.path(), [...args, "-no-color"], {
          cwd: dir,
          env,
          allowFailure: true,
        });
        return { code: r.code, output: r.output };
      };
      return { dir, run, lock: () => readFileSync(join(dir, ".terraform.lock.hcl"), "utf8") };
    }

    const filesystemMirror = (path: string) =>
      `  filesystem_mirror {\n    path    = "${path}"\n    include = ["${tool.host}/cws/*"]\n  }\n  direct {\n    exclude = ["${tool.host}/cws/*"]\n  }`;
    const networkMirror = (url: string) =>
      `  network_mirror {\n    url     = "${url}"\n    include = ["${tool.host}/cws/*"]\n  }\n  direct {\n    exclude = ["${tool.host}/cws/*"]\n  }`;

    async function applyAndDestroy(p: ReturnType<typeof project>, name: string): Promise<void> {
      const apply = await p.run("apply", "-auto-approve");
      expect(apply.output, apply.output).toMatch(/Apply complete! Resources: 1 added/);
      expect(apply.output).toMatch(/regions = 2/);
      expect((await liveResources(server)).ssh_keys.map((k) => k.name)).toContain(name);
      const destroy = await p.run("destroy", "-auto-approve");
      expect(destroy.output, destroy.output).toMatch(/Destroy complete! Resources: 1 destroyed/);
      expect((await liveResources(server)).ssh_keys.map((k) => k.name)).not.toContain(name);
    }

    it(
      "from the packed filesystem mirror: two mirrors in different places give one lock file; apply, destroy",
      { timeout: RUN_MS },
      async () => {
        const zipFile = join(release, ZIP);
        const laptop = packedMirror(join(root, "home", "laptop", "mirror"), tool.host, { [ZIP]: zipFile });
        const ci = packedMirror(join(root, "srv", "ci", "mirror"), tool.host, { [ZIP]: zipFile });
        const a = project("laptop", filesystemMirror(laptop));
        const b = project("ci", filesystemMirror(ci));
        for (const p of [a, b]) {
          const init = await p.run("init");
          expect(init.code, init.output).toBe(0);
          expect(init.output).toMatch(new RegExp(`Installed cws/cws v${VERSION.replaceAll(".", "\\.")}`));
        }
        expect(a.lock()).toBe(b.lock());
        expect(a.lock()).toMatch(/"h1:[A-Za-z0-9+/=]+"/);
        // The release's executable, unpacked by the tool: self-contained, run without Node.
        const installed = readdirSync(
          join(a.dir, ".terraform", "providers", tool.host, "cws", "cws", VERSION, PLATFORM),
        );
        expect(installed).toEqual([`terraform-provider-cws_v${VERSION}`]);
        await applyAndDestroy(a, `${tool.command}-laptop`);
      },
    );

    it(
      "from the network mirror over HTTPS (a test CA through SSL_CERT_FILE): apply, destroy",
      { timeout: RUN_MS },
      async () => {
        const p = project("network", networkMirror(https.url));
        const init = await p.run("init");
        expect(init.code, init.output).toBe(0);
        expect(https.requests).toContain(`/${tool.host}/cws/cws/index.json`);
        expect(https.requests).toContain(`/${tool.host}/cws/cws/${ZIP}`);
        // The mirror reports the zip's hash beside h1: OpenTofu's lock file keeps it.
        const zh = readFileSync(join(release, `terraform-provider-cws_${VERSION}_SHA256SUMS`), "utf8")
          .split("\n")
          .find((l) => l.endsWith(ZIP))!
          .split(" ")[0];
        expect(p.lock()).toMatch(/"h1:[A-Za-z0-9+/=]+"/);
        expect(p.lock().includes(`"zh:${zh}"`)).toBe(tool.recordsMirrorHashes);
        await applyAndDestroy(p, `${tool.command}-network`);
      },
    );

    it(
      "refuses a zip one byte off from the committed lock file or the mirror's checksums, and names a platform it has no package for",
      { timeout: RUN_MS },
      async () => {
        const good = packedMirror(join(root, "good"), tool.host, { [ZIP]: join(release, ZIP) });
        const committed = project("committed", filesystemMirror(good));
        expect((await committed.run("init")).code).toBe(0);

        const tampered = tamperedZip(join(release, ZIP), join(root, ZIP));
        const bad = packedMirror(join(root, "tampered"), tool.host, { [ZIP]: tampered });
        const withLock = project("with-lock", filesystemMirror(bad));
        writeFileSync(join(withLock.dir, ".terraform.lock.hcl"), committed.lock());
        const refused = await withLock.run("init");
        expect(refused.code).not.toBe(0);
        expect(refused.output).toMatch(
          /doesn't\s+match\s+any\s+of\s+the\s+checksums\s+previously\s+recorded\s+in\s+the\s+dependency\s+lock\s+file/,
        );

        // A network mirror serving that zip under the release's checksums.
        const badNetwork = join(root, "bad-network");
        cpSync(join(release, "network-mirror"), badNetwork, { recursive: true });
        const target = join(badNetwork, tool.host, "cws", "cws", ZIP);
        rmSync(target);
        linkSync(tampered, target);
        const served = await serveDirectory(badNetwork, cert);
        const mirrorRefused = await project("bad-network", networkMirror(served.url))
          .run("init")
          .finally(() => served.close());
        expect(mirrorRefused.code).not.toBe(0);
        expect(mirrorRefused.output).toMatch(
          /provider\s+package\s+doesn't\s+match\s+the\s+any\s+of\s+the\s+expected\s+checksums/,
        );

        // Only another platform's package in the mirror.
        const other = packedMirror(join(root, "other-platform"), tool.host, {
          [ZIP.replace(PLATFORM, "darwin_amd64")]: join(release, ZIP),
        });
        const missing = await project("other-platform", filesystemMirror(other)).run("init");
        expect(missing.code).not.toBe(0);
        expect(missing.output).toMatch(
          new RegExp(
            `does\\s+not\\s+have\\s+a\\s+package\\s+available\\s+for\\s+your\\s+current\\s+platform,\\s+${PLATFORM}`,
          ),
        );
      },
    );
  });
}
