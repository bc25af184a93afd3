/**
 * What `npm install pulumi-cws` downloads: the size of the tarball `npm pack` makes (after the
 * build, which `prepack` runs), unpacked, its file count, and the largest folders.
 * Run: node bench/package-size.ts (or `npm run pack:size`).
 */
import { execFileSync } from "node:child_process";
import { REPO_ROOT } from "../scripts/repo-root.ts";

interface PackInfo {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

const out = execFileSync("npm", ["pack", "--dry-run", "--json"], {
  cwd: REPO_ROOT,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
const [info] = JSON.parse(out) as PackInfo[];
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `tarball ${info.filename}: ${kib(info.size)} (unpacked ${kib(info.unpackedSize)}, ${info.entryCount} files)`,
);

const byFolder = new Map<string, number>();
for (const f of info.files) {
  const parts = f.path.split("/");
  const folder = parts.length > 2 ? parts.slice(0, 2).join("/") : parts.length > 1 ? parts[0] : f.path;
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + f.size);
}
for (const [folder, size] of [...byFolder].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
  console.log(`  ${folder.padEnd(20)} ${kib(size)} unpacked`);
}
