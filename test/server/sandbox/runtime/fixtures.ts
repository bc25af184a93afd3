/**
 * The tests of SandboxRuntime itself (no server): one runtime over a temporary rootDir for the
 * tests of a file or describe block, and what those tests check sandboxes with.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { pidsInNamespace } from "../../../../server/sandbox/runtime/procfs.ts";
import {
  bubblewrapStatus,
  SandboxError,
  SandboxRuntime,
  type SandboxRuntimeOptions,
  type TerminalSession,
} from "../../../../server/sandbox/runtime/index.ts";

export interface RuntimeFixture {
  rt: SandboxRuntime;
  /** The runtime's rootDir: a sandbox's files are under rootDir/<id>/fs/. */
  rootDir: string;
  /** Runs cmd in a sandbox, expects exit code 0, returns stdout. */
  sh(id: string, cmd: string, timeoutSec?: number): Promise<string>;
  /** Host PIDs of every process of a sandbox, found through its PID namespace. */
  hostPids(id: string): Promise<{ ns: string; pids: number[] }>;
  /** A headless sandbox started before the tests of the enclosing block: its id (`prefix`-...). */
  sandbox(prefix: string, hostname: string): string;
}

/**
 * A runtime for the tests of the enclosing file or describe block: made at once (so that tests can
 * name it), checked for a working bubblewrap before them, shut down and removed after them.
 */
export function useRuntime(options: Omit<SandboxRuntimeOptions, "rootDir"> = {}): RuntimeFixture {
  const rootDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-sbx-test-"));
  const rt = new SandboxRuntime({ rootDir, ...options });
  beforeAll(() => {
    const status = bubblewrapStatus();
    if (!status.available) throw new Error(`sandbox tests need bubblewrap: ${status.reason}`);
  });
  afterAll(async () => {
    await rt.shutdown();
    fs.rmSync(rootDir, { recursive: true, force: true });
  });
  const sh = async (id: string, cmd: string, timeoutSec = 20): Promise<string> => {
    const r = await rt.exec(id, cmd, timeoutSec);
    expect(r.code, `${cmd}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  // Namespaces a test looked at stay open until the tests end, so that a sandbox started
  // meanwhile (by this file or another) cannot take the same inode number.
  const held: number[] = [];
  afterAll(() => held.splice(0).forEach((fd) => fs.closeSync(fd)));
  const hostPids = async (id: string) => {
    const ns = (await sh(id, "readlink /proc/self/ns/pid")).trim();
    const pids = pidsInNamespace(ns);
    held.push(fs.openSync(`/proc/${pids[0]}/ns/pid`, "r"));
    return { ns, pids };
  };
  const sandbox = (prefix: string, hostname: string): string => {
    const id = nextId(prefix);
    beforeAll(() => rt.start(id, { hostname, desktop: false }));
    return id;
  };
  return { rt, rootDir, sh, hostPids, sandbox };
}

let seq = 0;
/** A sandbox id no other sandbox of this test process has. */
export const nextId = (p = "sb") => `${p}-${process.pid}-${++seq}`;

/** Expects `p` to fail with a SandboxError of this code; returns the error. */
export async function expectCode(
  p: Promise<unknown> | (() => unknown),
  code: SandboxError["code"],
): Promise<SandboxError> {
  let err: unknown;
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected SandboxError ${code}`).toBeInstanceOf(SandboxError);
  expect((err as SandboxError).code).toBe(code);
  return err as SandboxError;
}

/** Everything a terminal prints from now on. */
export function terminalOutput(t: TerminalSession): { text: () => string } {
  const chunks: Buffer[] = [];
  t.onData((b) => chunks.push(b));
  return { text: () => Buffer.concat(chunks).toString("utf8") };
}
