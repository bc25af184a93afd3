// The shape of server/: a root of at most five files (start, context, composition of services
// and modules, the CLI), everything else in the folder of its layer (scripts/layers.ts), and no
// source file over 450 lines unless its opening comment says why.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { layerOf } from "../../scripts/layers.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";

const SERVER = join(REPO_ROOT, "server");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.m?ts$/.test(e.name) ? [p] : [];
  });
}

describe("server layout", () => {
  it("keeps at most five files at the root of server/", () => {
    const root = readdirSync(SERVER, { withFileTypes: true }).filter((e) => e.isFile());
    expect(root.map((e) => e.name).sort()).toEqual([
      "cli.ts",
      "context.ts",
      "index.ts",
      "modules.ts",
      "services.ts",
    ]);
  });

  it("puts every source file in a layer", () => {
    const outside = sources(SERVER)
      .map((f) => relative(REPO_ROOT, f))
      .filter((f) => layerOf(f) === undefined);
    expect(outside).toEqual([]);
  });

  it("has no source file over 450 lines without a reason in its opening comment", () => {
    const long = sources(SERVER).filter((f) => {
      const lines = readFileSync(f, "utf8").split("\n");
      if (lines.length <= 450) return false;
      const opening = lines.slice(0, 20).join("\n");
      return !/over \d+ lines because/.test(opening);
    });
    expect(long.map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });
});
