/**
 * The shared state backends teams use, started by the tests as throwaway servers on this machine:
 *
 * - `startMoto()`: an S3-compatible store (`moto_server` from PyPI, in the project's .venv, put
 *   there by `npm run languages:setup`) holding one bucket, for Pulumi's DIY backend
 *   (`s3://bucket?endpoint=...&s3ForcePathStyle=true&region=us-east-1`).
 * - `startPostgres()`: a PostgreSQL cluster (Debian's `postgresql` package, installed by
 *   scripts/setup-tests.sh) made by `initdb` in a temp dir and run by `pg_ctl` on a free port, for
 *   OpenTofu's `pg` backend. PostgreSQL refuses to run as root: as root the cluster belongs to
 *   `nobody`, and its commands run under `setpriv` as that user.
 *
 * Both fail with what to install when their program is missing, never skip.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../../scripts/run.ts";
import { MOTO_SERVER } from "../../scripts/toolchain/languages.ts";
import { waitFor } from "./wait.ts";

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface S3Store {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  bucket: string;
  /** The DIY backend URL of the bucket (optionally a folder in it). */
  backendUrl(prefix?: string): string;
  /** The environment the Pulumi CLI needs to reach it (dummy credentials, the region). */
  env: Record<string, string>;
  /** Keys of the objects under `prefix` (S3 ListObjectsV2, unsigned: moto takes it). */
  list(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

/** How long a backend may take to answer after its start (a test's beforeAll allows more). */
export const BACKEND_START_MS = 180_000;

/** moto in server mode on a free port, with one empty bucket. */
export async function startMoto(bucket = "team-state"): Promise<S3Store> {
  if (!existsSync(MOTO_SERVER))
    throw new Error(
      `${MOTO_SERVER} is missing: run \`npm run languages:setup\` (it installs moto[server] into .venv)`,
    );
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(MOTO_SERVER, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`moto_server exited: ${stderr}`);
        return (await fetch(`${endpoint}/`).catch(() => undefined))?.ok ?? false;
      },
      "moto_server answering",
      // Python's start is slow on a loaded machine: give it the whole of the suite's hook time.
      { timeoutMs: BACKEND_START_MS },
    );
    const made = await fetch(`${endpoint}/${bucket}`, { method: "PUT" });
    if (!made.ok) throw new Error(`creating bucket ${bucket}: ${made.status} ${await made.text()}`);
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  }
  return {
    endpoint,
    bucket,
    backendUrl: (prefix) =>
      `s3://${bucket}${prefix ? `/${prefix}` : ""}?endpoint=${encodeURIComponent(endpoint)}&s3ForcePathStyle=true&region=us-east-1`,
    env: {
      AWS_ACCESS_KEY_ID: "team-test",
      AWS_SECRET_ACCESS_KEY: "team-test",
      AWS_REGION: "us-east-1",
      AWS_EC2_METADATA_DISABLED: "true",
    },
    async list(prefix) {
      const r = await fetch(`${endpoint}/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
      const xml = await r.text();
      return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
    },
    async close() {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable */
  url: string;
  /** Runs SQL through psql, returning its unaligned output. */
  sql(query: string): Promise<string>;
  close(): Promise<void>;
}

/** The newest PostgreSQL server programs installed (Debian keeps them per major version). */
export function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length)
    throw new Error(
      `no PostgreSQL under ${root}: install Debian's postgresql package (scripts/setup-tests.sh does)`,
    );
  return join(root, versions[0]!, "bin");
}

const NOBODY = 65534;

/** A throwaway cluster in a temp dir, trusting local connections, on a free port. */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const root = mkdtempSync(join(tmpdir(), "cws-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(root, NOBODY, NOBODY);
    chmodSync(root, 0o700);
  }
  /** A server program, run as `nobody` when we are root. */
  const pg = (program: string, args: string[]) =>
    asRoot
      ? runProcess(
          "setpriv",
          [
            "--reuid",
            String(NOBODY),
            "--regid",
            String(NOBODY),
            "--clear-groups",
            "--",
            join(bin, program),
            ...args,
          ],
          { cwd: root, env: { PATH: process.env.PATH ?? "", LANG: "C.UTF-8" } },
        )
      : runProcess(join(bin, program), args, { cwd: root, env: { ...process.env, LANG: "C.UTF-8" } });
  const port = await freePort();
  await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  await pg("pg_ctl", [
    "-D",
    data,
    "-l",
    join(root, "server.log"),
    "-w",
    "-o",
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "start",
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  return {
    url,
    async sql(query) {
      const r = await runProcess("psql", [url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query]);
      return r.stdout.trim();
    },
    async close() {
      await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
