/**
 * Project directories for programs run the way their users run them: as processes (the real
 * `pulumi` CLI, `python`, a Go binary; scripts/run.ts runs them) in a copy of the program's
 * directory, offline, with the native plugin `pulumi-resource-cws` found on PATH; and what such a
 * program printed and left in its state.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineEnv } from "../../scripts/offline-stack.ts";
import { DEMO_TOKEN } from "./http.ts";
import type { TestServer as Server } from "./server.ts";
import { NATIVE_ENV } from "./native.ts";

export interface ProgramDir {
  /** The project: a copy of the program's directory. */
  project: string;
  /** The file backend and PULUMI_HOME: everything the engine keeps. */
  state: string;
  /** Environment of every command: offline engine, plugin and CLI on PATH, the service's address. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Copies `source` (a directory of the repository) to a temp project dir with an offline engine. */
export function programDir(name: string, source: string, server: Server): ProgramDir {
  const root = mkdtempSync(join(tmpdir(), `cws-${name}-`));
  const project = join(root, "project");
  const state = join(root, "state");
  const backend = join(state, "backend");
  const home = join(state, "home");
  for (const d of [backend, home]) mkdirSync(d, { recursive: true });
  cpSync(source, project, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...offlineEnv(backend, home),
    // This Node (for the plugin launcher), the plugin (bin/), and the CLI with the YAML host.
    ...NATIVE_ENV,
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
  };
  return { project, state, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The JSON object a program prints on its `outputs: ` line. */
export function printedOutputs(out: string): Record<string, unknown> {
  const line = out.split("\n").find((l) => l.startsWith("outputs: "));
  if (!line) throw new Error(`no outputs line in:\n${out.slice(-3000)}`);
  return JSON.parse(line.slice("outputs: ".length)) as Record<string, unknown>;
}

/** Files under `dir` whose text contains `needle`: secrets must never be stored in plaintext. */
export function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesContaining(path, needle));
    else if (readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}
