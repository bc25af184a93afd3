/**
 * A program that imports `pulumi-cws/sdk` (or `pulumi-cws/sdk/native`) loads @pulumi/pulumi and
 * the generated classes, never the contract, the provider, the client or their dependencies (undici, zod):
 * the engine loads those in its own provider process. A fresh Node process imports the SDK under
 * a resolve hook that records every module it loads.
 */
import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/repo-root.ts";

/** Imports the SDK and prints every module it resolved, with the module that asked for it. */
const PROBE = `
import { registerHooks } from "node:module";
const loaded = [];
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    loaded.push({ url: result.url, from: context.parentURL ?? "" });
    return result;
  },
});
const sdk = await import(process.argv[1]);
process.stdout.write(JSON.stringify({ loaded, exports: Object.keys(sdk) }));
`;

interface Loaded {
  /** Path relative to the checkout, e.g. "sdk/index.ts" or "node_modules/zod/index.js". */
  file: string;
  from: string;
}

function loadSdk(entry: string): { files: Loaded[]; exports: string[] } {
  const r = spawnSync(
    process.execPath,
    ["--conditions=pulumi-cws-source", "--input-type=module", "-e", PROBE, entry],
    { cwd: REPO_ROOT, encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { loaded: { url: string; from: string }[]; exports: string[] };
  const local = (url: string) => (url.startsWith("file:") ? relative(REPO_ROOT, fileURLToPath(url)) : url);
  const files = out.loaded
    .filter((m) => m.url.startsWith("file:"))
    .map((m) => ({ file: local(m.url), from: local(m.from) }));
  return { files, exports: out.exports };
}

/** What a program must not load just by importing the SDK. */
const FORBIDDEN = [
  /^api\//,
  /^client\//,
  /^provider\//,
  /(^|\/)node_modules\/undici\//,
  /(^|\/)node_modules\/zod\//,
];

describe.each([
  ["pulumi-cws/sdk", "sdk/index.ts"],
  ["pulumi-cws/sdk/native", "sdk/native/index.ts"],
])("%s", (entry, file) => {
  it("loads @pulumi/pulumi and the generated classes, nothing of the contract, provider, client, undici or zod", () => {
    const { files, exports } = loadSdk(entry);
    const paths = files.map((f) => f.file);
    // The hook sees the SDK, its shared names and @pulumi/pulumi: an empty list cannot pass.
    expect(exports).toEqual(expect.arrayContaining(["Workload", "Sandbox", "Volume", "SshKey"]));
    expect(paths).toContain(file);
    // The generated classes carry their property names: nothing of api/ is needed either.
    expect(paths).toContain("sdk/workload.ts");
    expect(paths.some((p) => p.startsWith("node_modules/@pulumi/pulumi/"))).toBe(true);
    const forbidden = files.filter((f) => FORBIDDEN.some((re) => re.test(f.file)));
    expect(forbidden.map((f) => `${f.file} (imported by ${f.from})`)).toEqual([]);
  });
});
