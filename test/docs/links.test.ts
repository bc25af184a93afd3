// Every relative link of README.md and docs/ names a file of the repository (and, with a
// #fragment, a heading of that page), so moving or renaming a page cannot leave a dead link; and
// every repository path a Markdown page names in backticks exists, so a move that forgets a doc fails.
import { spawnSync } from "node:child_process";
import { existsSync, globSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { allDocs, anchors, docPages, relativeLinks, repoPaths, runnableBlocks } from "../helpers/markdown.ts";

describe("documentation links", () => {
  const pages = docPages();

  it("covers the README and the docs pages", () => {
    expect(pages).toContain("README.md");
    expect(pages.length).toBeGreaterThan(5);
  });

  for (const page of pages) {
    it(`${page}: every relative link resolves`, () => {
      const text = readFileSync(join(REPO_ROOT, page), "utf8");
      const broken: string[] = [];
      for (const link of relativeLinks(text)) {
        const [path, fragment] = link.split("#") as [string, string | undefined];
        const target = path === "" ? page : normalize(join(dirname(page), decodeURIComponent(path)));
        const file = join(REPO_ROOT, target);
        if (!existsSync(file)) {
          broken.push(`${link}: no such file ${target}`);
          continue;
        }
        if (fragment && statSync(file).isFile() && target.endsWith(".md")) {
          if (!anchors(readFileSync(file, "utf8")).has(fragment))
            broken.push(`${link}: ${target} has no heading #${fragment}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  for (const page of allDocs()) {
    it(`${page}: every repository path it names in backticks exists`, () => {
      const missing = repoPaths(readFileSync(join(REPO_ROOT, page), "utf8")).filter((p) =>
        p.includes("*") ? globSync(p, { cwd: REPO_ROOT }).length === 0 : !existsSync(join(REPO_ROOT, p)),
      );
      // What setup or the build makes (sdk/python, dist/...) is ignored by git, not a file to find.
      const made = (p: string) =>
        spawnSync("git", ["check-ignore", "--no-index", p, `${p}/`], { cwd: REPO_ROOT }).status === 0;
      expect(missing.filter((p) => !made(p))).toEqual([]);
    });
  }

  it("the README stays a front door: under 250 lines, with its programs marked runnable", () => {
    const lines = readFileSync(join(REPO_ROOT, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThan(250);
    expect(runnableBlocks("README.md", "typescript")).toHaveLength(1);
    expect(runnableBlocks("README.md", "python")).toHaveLength(1);
  });

  it("finds the repository paths a page names, and only those", () => {
    const text = [
      "See `provider/core/lifecycle.ts:12`, `server/sandbox/` and `package.json`;",
      "not `npm test`, `pulumi up`, `provider/resources/<kind>/` nor `dist/x.js`.",
      "```sh\ncat `scripts/in-a-block.ts`\n```",
    ].join("\n");
    expect(repoPaths(text)).toEqual(["provider/core/lifecycle.ts", "server/sandbox", "package.json"]);
  });

  it("finds a dead link and a missing heading", () => {
    expect(relativeLinks("[a](docs/x.md) `[b](c.md)` [c](https://e.org)")).toEqual(["docs/x.md"]);
    expect([...anchors("# The native plugin (`pulumi-resource-cws`)\n## A\n## A")]).toEqual([
      "the-native-plugin-pulumi-resource-cws",
      "a",
      "a-1",
    ]);
  });
});
