// A service that cannot be reached (client/reach.ts): a refused connection, an unknown host or a
// TLS failure fails within the unreachable window with the endpoint, the cause and the setting to
// check, says while it retries how much longer it will, and a service back within the window is
// waited out.
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  CwsClient,
  CwsUnreachableError,
  withRetryBudget,
  type CwsClientOptions,
  type RetryInfo,
} from "../../client/index.ts";
import { closedPort } from "../helpers/ports.ts";

const SECRET = "tok-SECRET-reach";
const clients: CwsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function clientOf(baseUrl: string, opts: Partial<CwsClientOptions> = {}): CwsClient {
  const c = new CwsClient({ baseUrl, org: "demo", token: SECRET, baseUrlSetting: "cws:baseUrl", ...opts });
  clients.push(c);
  return c;
}

/** Runs `fn` as a provider operation does: under a retry budget far longer than the window. */
const underBudget = <T>(fn: () => Promise<T>, onRetry?: (i: RetryInfo) => void) =>
  withRetryBudget({ deadline: Date.now() + 600_000, onRetry }, fn);

describe("a service that cannot be reached", () => {
  it("fails within the window, naming the endpoint, the cause and the setting, and says how long it still tries", async () => {
    const port = await closedPort();
    const c = clientOf(`http://127.0.0.1:${port}/v3`, { unreachableTimeoutMs: 1_500 });
    const said: RetryInfo[] = [];
    const start = Date.now();
    const e = (await underBudget(
      () => c.sshKeys.create({ name: "k", ssh_key: "x" }),
      (i) => said.push(i),
    ).catch((x: unknown) => x)) as CwsUnreachableError;
    const took = Date.now() - start;
    expect(e).toBeInstanceOf(CwsUnreachableError);
    expect(took).toBeLessThan(1_500 + 1_000);
    expect(e.message).toMatch(
      new RegExp(
        `^cannot reach the service at http://127\\.0\\.0\\.1:${port}/v3: connection refused \\(ECONNREFUSED\\), after \\d+ s of retrying; check cws:baseUrl and that the service is running there`,
      ),
    );
    expect(e.message).not.toContain(SECRET);
    expect(said.length).toBeGreaterThan(1);
    const left = said.map((i) => i.unreachable!.leftMs);
    expect(left[0]).toBeLessThanOrEqual(1_500);
    expect(left.at(-1)).toBeLessThan(left[0]!);
    // Past the window, the next operation fails at its first attempt instead of waiting again.
    const again = Date.now();
    await expect(underBudget(() => c.sshKeys.list())).rejects.toBeInstanceOf(CwsUnreachableError);
    expect(Date.now() - again).toBeLessThan(500);
  });

  it("fails an unknown host the same way", async () => {
    const c = clientOf("http://cws-unknown-host.invalid/v3", { unreachableTimeoutMs: 1_000 });
    const e = (await underBudget(() => c.sshKeys.list()).catch((x: unknown) => x)) as CwsUnreachableError;
    expect(e).toBeInstanceOf(CwsUnreachableError);
    expect(e.message).toMatch(
      /^cannot reach the service at http:\/\/cws-unknown-host\.invalid\/v3: (unknown host|host name lookup failed)/,
    );
  });

  it("fails a TLS failure at the first attempt, naming the certificate", async () => {
    // An https URL on a plain HTTP server: the handshake cannot succeed, and retrying will not change that.
    const plain = createHttpServer((_q, res) => res.end("{}"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    try {
      const port = (plain.address() as AddressInfo).port;
      const said: RetryInfo[] = [];
      const c = clientOf(`https://127.0.0.1:${port}/v3`, { onRetry: (i) => said.push(i) });
      const e = (await underBudget(() => c.sshKeys.list()).catch((x: unknown) => x)) as CwsUnreachableError;
      expect(e).toBeInstanceOf(CwsUnreachableError);
      expect(e.message).toMatch(/TLS failed: .*; check cws:baseUrl and the service's certificate/);
      expect(said).toEqual([]);
    } finally {
      await new Promise<void>((r) => plain.close(() => r()));
    }
  });

  it("waits out a service that comes back within the window", async () => {
    const port = await closedPort();
    const c = clientOf(`http://127.0.0.1:${port}/v3`, { unreachableTimeoutMs: 10_000 });
    const back = createHttpServer((_q, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ items: [], next_cursor: null }));
    });
    setTimeout(() => back.listen(port, "127.0.0.1"), 1_200);
    try {
      const said: RetryInfo[] = [];
      const page = await underBudget(
        () => c.sshKeys.list(),
        (i) => said.push(i),
      );
      expect(page).toBeDefined();
      expect(said.length).toBeGreaterThan(0);
      expect(said.every((i) => i.unreachable?.cause === "connection refused (ECONNREFUSED)")).toBe(true);
    } finally {
      await new Promise<void>((r) => back.close(() => r()));
    }
  });
});
