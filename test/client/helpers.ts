/** Helpers of the client tests: an in-process reference server, clients pointed at it, a stub server. */
import { expect } from "vitest";
import { CwsClient, type CwsClientOptions } from "../../client/index.ts";
import { startTestServer as startServer, type TestServer } from "../helpers/server.ts";

export const ORG = "demo";
export const TOKEN = "demo-token";
export { ADMIN_TOKEN } from "../helpers/server.ts";

export type { TestServer };

export function startTestServer(opts: { provisionDelayMs?: number } = {}): Promise<TestServer> {
  return startServer({ provisionDelayMs: 30, ...opts, tempSandboxRoot: "cws-client-test-", log: () => {} });
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

export { admin } from "../helpers/http.ts";

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

export { sshKey } from "../helpers/ssh-keys.ts";
