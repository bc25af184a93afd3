/**
 * What the docs tests read from Markdown: the pages (README.md and docs/), their links, the
 * anchors their headings make, the code blocks marked `<!-- runnable: LANG -->`, and tables.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../scripts/repo-root.ts";

/** README.md and every Markdown page under docs/, relative to the repository root. */
export function docPages(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f))
    .sort();
  return ["README.md", ...docs];
}

/** The page's text with fenced code blocks and inline code blanked (links in code are not links). */
function prose(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (m) => m.replace(/[^\n]/g, " "))
    .replace(/`[^`\n]*`/g, (m) => " ".repeat(m.length));
}

/** Relative link targets of a page (external URLs and mail links left out). */
export function relativeLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    out.push(target);
  }
  return out;
}

/** The folders and root files of the repository a backticked path can start with. */
const REPO_TOP =
  /^(api|bench|bin|client|docs|examples|provider|scripts|sdk|server|test|tools|\.ci)\/|^(package\.json|schema\.json|PulumiPlugin\.yaml|tsconfig(\.build)?\.json|vitest\.config\.ts|eslint\.config\.js)$/;

/**
 * The repository paths a page names in inline code outside code blocks: spans that start with a
 * top folder (`provider/core/lifecycle.ts`) or are a root file, written without spaces. A
 * trailing `:LINE`, `#anchor` or `/` is dropped; spans with placeholders (`<kind>`, `{uid}`,
 * `...`) are not paths. A `*` stays in, as a glob one file must match.
 */
export function repoPaths(text: string): string[] {
  const out = new Set<string>();
  const code = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of code.matchAll(/`([^`\s]+)`/g)) {
    const span = m[1]!.replace(/(:\d+(-\d+)?|#.*)$/, "").replace(/\/$/, "");
    if (!REPO_TOP.test(span) && !REPO_TOP.test(`${span}/`)) continue;
    if (/[<>{}]|\.\.\.|\$/.test(span)) continue;
    out.add(span);
  }
  return [...out];
}

/** Every Markdown file of the repository a reader meets, generated SDKs and the changelog apart. */
export function allDocs(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
      if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "dist") continue;
      const rel = dir ? join(dir, e.name) : e.name;
      if (e.isDirectory()) {
        if (rel !== "sdk" && rel !== "test") walk(rel);
      } else if (e.name.endsWith(".md") && rel !== "CHANGELOG.md") out.push(rel);
    }
  };
  walk("");
  return out.sort();
}

/** The anchors the headings of a page make, as GitHub spells them. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const headings = text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .split("\n")
    .filter((l) => /^#{1,6} /.test(l));
  for (const h of headings) {
    const base = h
      .replace(/^#+ /, "")
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The code blocks of a page marked runnable for `lang` (`<!-- runnable: lang -->` before the fence). */
export function runnableBlocks(page: string, lang: string): string[] {
  const text = readFileSync(join(REPO_ROOT, page), "utf8");
  const re = new RegExp(`<!-- runnable: ${lang} -->\\s*\\n\`\`\`[^\\n]*\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  return [...text.matchAll(re)].map((m) => m[1]!);
}

/** A fenced code block of a page: its language (empty when none is named) and its text. */
export interface FencedBlock {
  lang: string;
  text: string;
}

/** The fenced code blocks of a page, in order (the pages whose blocks a test runs one by one). */
export const fencedBlocks = (page: string): FencedBlock[] =>
  [...page.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));

/**
 * A line of a documented output as a pattern: runs of white space are one space, and `…` stands
 * for what changes from run to run (a uid, a time, a key).
 */
export const outputLinePattern = (line: string): RegExp =>
  new RegExp(
    line
      .replace(/\s+/g, " ")
      .trim()
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".+?"),
  );

/** The rows of the Markdown table whose header starts with `| first |`, as cells by header. */
export function markdownTable(text: string, first: string): Record<string, string>[] {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^\\| ${first} +\\|`).test(l));
  if (at < 0) throw new Error(`no table headed "${first}"`);
  const cells = (l: string) =>
    l
      .slice(1, -1)
      .split("|")
      .map((c) => c.trim());
  const header = cells(lines[at]!);
  const rows: Record<string, string>[] = [];
  for (const l of lines.slice(at + 2)) {
    if (!l.startsWith("|")) break;
    rows.push(Object.fromEntries(cells(l).map((c, i) => [header[i]!, c])));
  }
  return rows;
}
