/**
 * The typed client docs/reference-server.md shows: types generated from the served document with
 * openapi-typescript, calls made with openapi-fetch. The page's own TypeScript block type-checks
 * against the generated types (and a body the document refuses does not), and the call it makes
 * answers what the types say.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { fencedBlocks } from "../helpers/markdown.ts";
import { useTestServer } from "../helpers/server.ts";

/** The page's client example, pointed at `origin`. */
function documentedClient(origin: string): string {
  const page = readFileSync(join(REPO_ROOT, "docs", "reference-server.md"), "utf8");
  const block = fencedBlocks(page).find((b) => b.lang === "ts" && b.text.includes("openapi-fetch"));
  if (!block) throw new Error("docs/reference-server.md has no openapi-fetch example");
  return block.text.replace("http://127.0.0.1:8080", origin);
}

/** tsc's errors for the files of `dir` named in `files`, strict, as an ES module project. */
function typeErrors(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((f) => join(dir, f)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("a client generated from the OpenAPI document", () => {
  const server = useTestServer();
  let dir: string;
  beforeAll(async () => {
    // A project of its own whose node_modules are the repository's (openapi-fetch, typescript).
    dir = mkdtempSync(join(tmpdir(), "cws-openapi-client-"));
    symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const doc = (await (await fetch(`${server.origin}/v3/openapi.json`)).json()) as object;
    writeFileSync(join(dir, "cws.d.ts"), astToString(await openapiTS(doc as never)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("type-checks the documented call, and refuses a body the document refuses", () => {
    const example = documentedClient(server.origin);
    writeFileSync(join(dir, "example.ts"), `${example}\nexport {};\n`);
    expect(typeErrors(dir, ["example.ts"])).toEqual([]);
    // Only BM takes a region: the RENTAL body of the document's oneOf by type says so.
    const wrong = example.replace('resource_name: "gpu-rental-small"', '$& , region: "us-east-1"');
    expect(wrong).not.toBe(example);
    writeFileSync(join(dir, "wrong.ts"), `${wrong}\nexport {};\n`);
    expect(typeErrors(dir, ["wrong.ts"]).join("\n")).toMatch(/'region' does not exist/);
  });

  it("makes the documented call, which answers what the types say", async () => {
    // The page's block as it stands, run by Node (which strips its types), printing what it got.
    writeFileSync(
      join(dir, "call.ts"),
      `${documentedClient(server.origin)}\nconsole.log(JSON.stringify({ data, error }));\n`,
    );
    const node = join(REPO_ROOT, "node_modules", ".bin", "node");
    // Not execFileSync: the server answering the call runs in this process.
    const { stdout } = await promisify(execFile)(node, [join(dir, "call.ts")], { cwd: dir });
    const out = JSON.parse(stdout) as {
      data?: { uid: string; type: string; name: string };
      error?: unknown;
    };
    expect(out.error).toBeUndefined();
    expect(out.data).toMatchObject({ type: "RENTAL", name: "web", uid: expect.stringMatching(/^wl-/) });
  });
});
