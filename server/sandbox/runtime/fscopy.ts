// Host-side copy of a sandbox's writable files (fork, snapshot, start from snapshot).
//
// The source tree is written by the sandbox and must be treated as hostile. GNU
// `cp -a` (coreutils) copies it: it never follows symlinks in the source (-a implies -P:
// a symlink is copied as a symlink with its target text unchanged), keeps modes, owners,
// timestamps and hard links, keeps sparse files sparse and uses reflinks where the
// filesystem has them. FIFOs and sockets are recreated as inert nodes, never opened. The
// runtime stops the sandbox's processes while it copies a live sandbox, so the tree
// cannot change under the copy (no check-then-use race with a symlink swapped in), and
// the destination is a directory the runtime has just created.

import { spawn } from "node:child_process";
import * as fsp from "node:fs/promises";

/** Copies the contents of the directory src into the directory dst (created if missing). */
export async function copyTree(src: string, dst: string): Promise<void> {
  const st = await fsp.lstat(src);
  if (!st.isDirectory()) throw new Error(`not a directory: ${src}`);
  await fsp.mkdir(dst, { recursive: true });
  // "src/." copies the contents of src (and src's own mode/times) onto dst.
  await run("cp", ["-a", "--reflink=auto", "--", `${src}/.`, `${dst}/`], "cp -a");
}

/**
 * Gives a tree (copied for a new sandbox) to the sandbox's host user: `chown -R -h`
 * changes symlinks themselves and never follows one.
 */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await run("chown", ["-R", "-h", `${uid}:${gid}`, "--", dir], "chown");
}

/** Runs a command to its end; a failure names it (`<name> failed (<code>): <the end of its stderr>`). */
function run(command: string, args: string[], name: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (b: Buffer) => {
      err = (err + b.toString()).slice(-2000);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${name} failed (${code}): ${err.trim()}`)),
    );
  });
}
