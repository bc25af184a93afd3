import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeCycles, importGraph, importsOf } from "../../scripts/check-imports.ts";

const SCRIPT = join(import.meta.dirname, "../../scripts/check-imports.ts");
let root: string | undefined;

function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), "check-imports-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe("check-imports", () => {
  it("reads every kind of relative import and tells type-only ones apart", () => {
    const found = importsOf(
      "x.ts",
      [
        `import a from "./a.ts";`,
        `import type { B } from "./b.ts";`,
        `import { type C, type D } from "./c.ts";`,
        `import { type E, f } from "./e.ts";`,
        `import "./g.ts";`,
        `export { h } from "./h.ts";`,
        `export type { I } from "./i.ts";`,
        `type J = typeof import("./j.ts");`,
        `const k = await import("./k.ts");`,
        `import * as fs from "node:fs";`,
        `import { x } from "pulumi-cws/api";`,
        `// import { y } from "./commented.ts";`,
        `const s = 'import { z } from "./in-a-string.ts"';`,
      ].join("\n"),
    );
    expect(found).toEqual([
      { spec: "./a.ts", typeOnly: false },
      { spec: "./b.ts", typeOnly: true },
      { spec: "./c.ts", typeOnly: true },
      { spec: "./e.ts", typeOnly: false },
      { spec: "./g.ts", typeOnly: false },
      { spec: "./h.ts", typeOnly: false },
      { spec: "./i.ts", typeOnly: true },
      { spec: "./j.ts", typeOnly: true },
      { spec: "./k.ts", typeOnly: false },
    ]);
  });

  it("lists each cycle, type-only edges marked, and nothing for an acyclic tree", () => {
    const dir = tree({
      "src/a.ts": `import { b } from "./b.ts";\nexport const a = b;`,
      "src/b.ts": `import type { A } from "./c.ts";\nexport const b = 1;`,
      "src/c.ts": `import { a } from "./a.ts";\nexport type A = typeof a;`,
      "src/d.ts": `import { a } from "./a.ts";\nexport const d = a;`,
      "src/self.mts": `export { s } from "./self.mts";\nexport const s = 1;`,
      "lib/e.ts": `import { d } from "../src/d.ts";\nexport const e = d;`,
    });
    const graph = importGraph([join(dir, "src"), join(dir, "lib")]);
    expect(describeCycles(graph, dir)).toEqual([
      "cycle: src/a.ts -> src/b.ts -> src/c.ts (type) -> src/a.ts",
      "cycle: src/self.mts -> src/self.mts",
    ]);
    rmSync(join(dir, "src/self.mts"));
    writeFileSync(join(dir, "src/c.ts"), "export type A = number;");
    expect(describeCycles(importGraph([join(dir, "src"), join(dir, "lib")]), dir)).toEqual([]);
  });

  it("names every file of a group that one cycle does not pass through", () => {
    const dir = tree({
      "a.ts": `import "./b.ts";\nimport "./c.ts";`,
      "b.ts": `import "./a.ts";`,
      "c.ts": `import "./a.ts";`,
    });
    expect(describeCycles(importGraph([dir]), dir)).toEqual([
      "cycle: a.ts -> b.ts -> a.ts\n  files in this cycle group: a.ts, b.ts, c.ts",
    ]);
  });

  it("exits 1 listing the cycles, 0 when there are none", () => {
    const dir = tree({
      "src/a.ts": `import type { B } from "./b.ts";\nexport type A = B;`,
      "src/b.ts": `import type { A } from "./a.ts";\nexport type B = A;`,
      "ok/c.ts": `export const c = 1;`,
    });
    const bad = spawnSync(process.execPath, [SCRIPT, "--root", dir, "src", "ok"], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("1 import cycle among 3 files");
    expect(bad.stderr).toContain("cycle: src/a.ts -> src/b.ts (type) -> src/a.ts (type)");
    const good = spawnSync(process.execPath, [SCRIPT, "--root", dir, "ok"], { encoding: "utf8" });
    expect(good.status).toBe(0);
    expect(good.stdout).toContain("no import cycles and no import up the layers among 1 file\n");
  });

  it("refuses an import up the layers unless a reason is written on the line before it", () => {
    const dir = tree({
      "server/store/a.ts": `import { w } from "../workloads/w.ts";\nexport const a = w;`,
      "server/workloads/w.ts": `import { v } from "../volumes/v.ts";\nexport const w = v;`,
      "server/volumes/v.ts": `import type { C } from "../context.ts";\nexport const v = 1;\nexport type V = C;`,
      "server/context.ts": `export type C = number;`,
    });
    const run = () => spawnSync(process.execPath, [SCRIPT, "--root", dir, "server"], { encoding: "utf8" });
    const bad = run();
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("2 import(s) up the layers");
    expect(bad.stderr).toContain(
      "server/store/a.ts (server store) imports server/workloads/w.ts (server workloads)",
    );
    expect(bad.stderr).toContain("server/workloads/w.ts (server workloads) imports server/volumes/v.ts");
    // the shared context is importable (types only) from every layer; a reason lets an import up
    writeFileSync(
      join(dir, "server/store/a.ts"),
      `// layer: a test of the rule\nimport { w } from "../workloads/w.ts";\nexport const a = w;`,
    );
    writeFileSync(join(dir, "server/workloads/w.ts"), `export const w = 1;`);
    const good = run();
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
  });

  it("refuses an import between peers, the provider's front ends, whichever comes first in the list", () => {
    const dir = tree({
      "provider/frontend/base.ts": `export const base = 1;`,
      "provider/dynamic.ts": `import { a } from "./dynamic/adapter.ts";\nexport const d = a;`,
      "provider/dynamic/adapter.ts": `import { base } from "../frontend/base.ts";\nexport const a = base;`,
      "provider/native/n.ts": `import { base } from "../frontend/base.ts";\nexport const n = base;`,
      "provider/opentofu/t.ts": `import { n } from "../native/n.ts";\nexport const t = n;`,
    });
    const run = () => spawnSync(process.execPath, [SCRIPT, "--root", dir, "provider"], { encoding: "utf8" });
    const bad = run();
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("1 import(s) up the layers or to a peer");
    expect(bad.stderr).toContain(
      "provider/opentofu/t.ts (provider opentofu) imports provider/native/n.ts (provider native, its peer among the provider front ends)",
    );
    // the other way round too, and from dynamic.ts, which is the dynamic front end as dynamic/ is
    writeFileSync(join(dir, "provider/opentofu/t.ts"), `export const t = 1;`);
    writeFileSync(
      join(dir, "provider/dynamic.ts"),
      `import { t } from "./opentofu/t.ts";\nexport const d = t;`,
    );
    expect(run().stderr).toContain(
      "provider/dynamic.ts (provider dynamic) imports provider/opentofu/t.ts (provider opentofu, its peer among the provider front ends)",
    );
    writeFileSync(
      join(dir, "provider/dynamic.ts"),
      `// layer: a test of the rule\nimport { t } from "./opentofu/t.ts";\nexport const d = t;`,
    );
    const good = run();
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
  });
});
