// Every relative link of README.md and docs/ names a file of the repository (and, with a
// #fragment, a heading of that page), so moving or renaming a page cannot leave a dead link.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { anchors, docPages, relativeLinks, runnableBlocks } from "../helpers/markdown.ts";

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

  it("the README stays a front door: under 250 lines, with its programs marked runnable", () => {
    const lines = readFileSync(join(REPO_ROOT, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThan(250);
    expect(runnableBlocks("README.md", "typescript")).toHaveLength(1);
    expect(runnableBlocks("README.md", "python")).toHaveLength(1);
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
