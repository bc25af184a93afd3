/** Helpers of the client tests: an in-process reference server, clients pointed at it, a stub server. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { CwsClient, type CwsClientOptions } from "../../client/index.ts";
import { startServer } from "../../server/index.ts";

export const ORG = "demo";
export const TOKEN = "demo-token";
export const ADMIN_TOKEN = "admin-token";

export type TestServer = Awaited<ReturnType<typeof startServer>> & { stop(): Promise<void> };

export async function startTestServer(opts: { provisionDelayMs?: number } = {}): Promise<TestServer> {
  const sandboxRoot = mkdtempSync(join(tmpdir(), "cws-client-test-"));
  const server = await startServer({
    port: 0,
    provisionDelayMs: opts.provisionDelayMs ?? 30,
    sandboxRoot,
    log: () => {},
  });
  return {
    ...server,
    async stop() {
      await server.close();
      rmSync(sandboxRoot, { recursive: true, force: true });
    },
  };
}

/** A client of the demo org with strict response checking and fast retries. */
export function testClient(server: { baseUrl: string }, opts: CwsClientOptions = {}): CwsClient {
  return new CwsClient({
    baseUrl: server.baseUrl,
    org: ORG,
    token: TOKEN,
    timeoutMs: 5_000,
    strictResponses: true,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...opts,
  });
}

/** A call to the server's admin surface. */
export async function admin<T = unknown>(
  server: { adminUrl: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${server.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Awaits `p`, expects it to reject with an instance of `cls`, and returns the error. */
export async function rejection<E extends Error>(
  p: Promise<unknown> | (() => Promise<unknown>),
  cls: abstract new (...args: never[]) => E,
): Promise<E> {
  let err: unknown;
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected ${cls.name}`).toBeInstanceOf(cls);
  return err as E;
}

export { collect } from "./helpers-pure.ts";

export const SSH_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test@example";

/** A distinct valid ed25519 public key per `n`. */
export function sshKey(n: number): string {
  const raw = Buffer.alloc(51);
  raw.writeUInt32BE(11, 0);
  raw.write("ssh-ed25519", 4, "latin1");
  raw.writeUInt32BE(32, 15);
  raw.fill(n % 256, 19);
  raw.writeUInt32BE(n, 19);
  return `ssh-ed25519 ${raw.toString("base64")} key-${n}`;
}
