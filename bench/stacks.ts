/**
 * What the provider benches (provider.ts, scale.ts) share: the engine floor's no-op dynamic
 * resource, the front ends as a user installs them (the compiled package in dist/: the SDKs, the
 * plugin, the OpenTofu provider), and the reference server in a process of its own
 * (provider-server.ts) with the requests it answered.
 */
import * as pulumi from "@pulumi/pulumi";
import { fork } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { DIST } from "./built-package.ts";

export type Sdk = typeof import("../sdk/index.ts");

/** The engine's process for an operation (its command line, NUL-separated). */
export const ENGINE = /\/pulumi\0(up|preview|refresh|destroy)\0/;

/** The floor's provider: every operation answers at once, nothing is called. */
const noop: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news };
  },
  async diff() {
    return { changes: false };
  },
  async create(inputs) {
    return { id: String(inputs.name), outs: inputs };
  },
  async read(id, props) {
    return { id, props };
  },
  async delete() {},
};

/** A resource of the engine floor: a dynamic resource whose provider does nothing. */
export class Noop extends pulumi.dynamic.Resource {
  constructor(name: string) {
    super(noop, name, { name }, {}, "bench", "Noop");
  }
}

/** The floor's program: `n` no-op resources. */
export function floorProgram(n: number) {
  return async () => {
    for (let i = 0; i < n; i++) new Noop(`r${i}`);
  };
}

/**
 * A dir holding `pulumi-resource-cws` as installed: the compiled plugin (dist/) under this Node.
 * (bin/pulumi-resource-cws runs a checkout's sources.)
 */
export function builtPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cws-bench-plugin-"));
  const launcher = join(dir, "pulumi-resource-cws");
  writeFileSync(
    launcher,
    `#!/bin/sh\nexec "${process.execPath}" "${join(DIST, "provider", "native", "main.js")}" "$@"\n`,
  );
  chmodSync(launcher, 0o755);
  return dir;
}

/**
 * An OpenTofu filesystem mirror (unpacked layout) holding the compiled provider (dist/) as
 * `cws/cws` at the package's version, under this Node.
 */
export function builtTofuMirror(dir: string): void {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  const platform = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;
  const pkg = join(dir, "registry.opentofu.org", "cws", "cws", version, platform);
  mkdirSync(pkg, { recursive: true });
  const exe = join(pkg, `terraform-provider-cws_v${version}`);
  writeFileSync(
    exe,
    `#!/bin/sh\nexec "${process.execPath}" "${join(DIST, "provider", "opentofu", "main.js")}" "$@"\n`,
  );
  chmodSync(exe, 0o755);
}

/** What the server child answered since the last look. */
export interface Counts {
  /** API requests by route (`GET /workloads/{uid}/state`). */
  counts: Record<string, number>;
  /** API requests by status code. */
  statuses: Record<string, number>;
  cpuSeconds: number;
  /** The same with the processes the server started (its sandboxes, their agents). */
  treeCpuSeconds: number;
}

export interface ServerChild {
  baseUrl: string;
  adminUrl: string;
  /** API requests by route and status, and the server's CPU seconds since the last call. */
  counts(): Promise<Counts>;
  stop(): void;
}

/** provider-server.ts in a child process, deploys taking `provisionMs`. */
export async function startServerChild(provisionMs: number): Promise<ServerChild> {
  const proc = fork(fileURLToPath(new URL("./provider-server.ts", import.meta.url)), [String(provisionMs)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const urls = await new Promise<{ baseUrl: string; adminUrl: string }>((ok, fail) => {
    proc.once("message", (m) => ok(m as { baseUrl: string; adminUrl: string }));
    proc.once("exit", (c) => fail(new Error(`bench server exited ${c}`)));
  });
  return {
    ...urls,
    counts: () =>
      new Promise((ok) => {
        proc.once("message", (m) => ok(m as Counts));
        proc.send("counts");
      }),
    stop: () => void proc.send("exit"),
  };
}

export async function adminCall<T>(
  server: Pick<ServerChild, "adminUrl">,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${server.adminUrl}${path}`, {
    method,
    headers: {
      authorization: "Bearer admin-token",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return (await res.json().catch(() => undefined)) as T;
}
