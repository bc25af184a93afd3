/** What the client tests share: clients of the demo org pointed at a test server, and error and iteration checks. */
import { expect } from "vitest";
import { CwsClient, type CwsClientOptions } from "../../client/index.ts";
import { DEMO_TOKEN, type ApiServer } from "../helpers/http.ts";
import { suiteValue } from "../helpers/suite.ts";

let seq = 0;
/** A name no other call of this test file gets. */
export const uniq = (p: string) => `${p}-${++seq}`;

/** A client of the demo org with strict response checking and fast retries. */
export function testClient(server: ApiServer, opts: CwsClientOptions = {}): CwsClient {
  return new CwsClient({
    baseUrl: server.baseUrl,
    org: "demo",
    token: DEMO_TOKEN,
    timeoutMs: 5_000,
    strictResponses: true,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...opts,
  });
}

/** One client (testClient) for the tests of the enclosing file or describe block, closed after them. */
export function useTestClient(server: ApiServer, opts: CwsClientOptions = {}): CwsClient {
  return suiteValue(
    "the suite's client",
    async () => testClient(server, opts),
    (c) => c.close(),
  );
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

/** Drains an async iterable into an array. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
