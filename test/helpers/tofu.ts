/**
 * OpenTofu projects pointed at a test server, run with the real `tofu` (scripts/toolchain/tofu.ts)
 * as a user runs it: the provider installed offline from a local filesystem mirror that holds
 * this checkout's `terraform-provider-cws`, `tofu init` resolving it from there. A project may
 * run another tofu than the one setup builds (an older release, to see what its users get).
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { runProcess } from "../../scripts/run.ts";
import { mirrorEnv, tofuPath } from "../../scripts/toolchain/tofu.ts";
import { DEMO_TOKEN, type ApiServer } from "./http.ts";

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const PLATFORM = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;

export interface TofuRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together. */
  output: string;
}

export interface TofuProject {
  dir: string;
  run(...args: string[]): Promise<TofuRun>;
  /** Writes (or replaces) a file of the project. */
  write(name: string, text: string): void;
  cleanup(): void;
}

/**
 * A filesystem mirror (unpacked layout) holding the provider as `cws/cws` at the package's
 * version: `registry.opentofu.org/cws/cws/<version>/<os>_<arch>/terraform-provider-cws_v<version>`.
 */
export function writeMirror(dir: string): void {
  const pkg = join(dir, "registry.opentofu.org", "cws", "cws", VERSION, PLATFORM);
  mkdirSync(pkg, { recursive: true });
  const exe = join(pkg, `terraform-provider-cws_v${VERSION}`);
  writeFileSync(exe, `#!/bin/sh\nexec "${join(REPO_ROOT, "bin", "terraform-provider-cws")}" "$@"\n`);
  chmodSync(exe, 0o755);
}

/**
 * A project in a temporary directory, set up to run against `server`: a copy of `source` (a
 * folder of .tf files), or the files given by name.
 */
export function tofuProject(
  server: ApiServer,
  source: string | Record<string, string>,
  env: Record<string, string> = {},
  tofu: string = tofuPath(),
): TofuProject {
  const root = mkdtempSync(join(tmpdir(), "cws-tofu-"));
  const dir = join(root, "project");
  if (typeof source === "string") {
    cpSync(source, dir, {
      recursive: true,
      filter: (s) => !s.includes(".terraform") && !s.endsWith(".tfstate"),
    });
  } else {
    mkdirSync(dir);
    for (const [name, text] of Object.entries(source)) writeFileSync(join(dir, name), text);
  }
  const mirror = join(root, "mirror");
  writeMirror(mirror);
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...mirrorEnv(root, mirror),
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
    ...env,
  };
  return {
    dir,
    run: async (...args) => {
      const flags = args[0] === "init" || args[0] === "version" ? [] : ["-no-color"];
      const r = await runProcess(tofu, [...args, ...flags], {
        cwd: dir,
        env: fullEnv,
        allowFailure: true,
      });
      return { code: r.code ?? 1, stdout: r.stdout, stderr: r.stderr, output: `${r.stdout}\n${r.stderr}` };
    },
    write: (name, text) => writeFileSync(join(dir, name), text),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The files of a saved plan (`tofu plan -out`), a zip archive, by name with their content
 * uncompressed: what a search of the plan file for a secret must look at.
 */
export function planFileEntries(path: string): Record<string, Buffer> {
  const zip = readFileSync(path);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error(`${path} is not a zip archive`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: Record<string, Buffer> = {};
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    out[name] = method === 8 ? inflateRawSync(data) : Buffer.from(data);
    at += 46 + skip;
  }
  return out;
}
