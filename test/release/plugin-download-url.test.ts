/**
 * `--plugin-download-url` (scripts/pack-sdks.ts): the schema the SDKs are generated from names it,
 * the committed schema.json does not, and an SDK's plugin metadata carries it (the Go module's
 * `pulumi-plugin.json` here; the wheel's is used end to end by test/e2e/release/pulumi-install.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GO_MODULE, packGoModule, schemaText } from "../../scripts/pack-sdks.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { run } from "../../scripts/run.ts";

const URL = "https://releases.example.com/cws/v${VERSION}/";
const dir = mkdtempSync(join(tmpdir(), "cws-download-url-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("--plugin-download-url", () => {
  it("goes into the schema the SDKs are generated from, after its version; the committed one has none", () => {
    const committed = readFileSync(join(REPO_ROOT, "schema.json"), "utf8");
    expect(JSON.parse(committed)).not.toHaveProperty("pluginDownloadURL");
    expect(schemaText()).toBe(committed);
    const keys = Object.keys(JSON.parse(schemaText(URL)) as object);
    expect(keys.indexOf("pluginDownloadURL")).toBe(keys.indexOf("version") + 1);
    expect(JSON.parse(schemaText(URL))).toMatchObject({ pluginDownloadURL: URL });
  });

  it("is the server of the Go module's plugin metadata", { timeout: 300_000 }, async () => {
    const proxy = await packGoModule(dir, () => {}, { pluginDownloadUrl: URL });
    const zip = join(
      proxy,
      GO_MODULE.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`),
      "@v",
      "v0.1.0.zip",
    );
    const metadata = await run("python3", [
      "-c",
      "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
      zip,
      `${GO_MODULE}@v0.1.0/cws/pulumi-plugin.json`,
    ]);
    expect(JSON.parse(metadata)).toEqual({ resource: true, name: "cws", version: "0.1.0", server: URL });
  });
});
