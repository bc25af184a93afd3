/**
 * The resource modules' Context against an in-process reference server, for tests that call the
 * modules as a front end does (no engine): `useProviderContext(options)` starts the server before
 * the tests of the file (or describe block) and gives a Context whose client speaks to it as the
 * demo org, with the progress lines it logged.
 */
import { CwsClient } from "../../client/index.ts";
import type { Context } from "../../provider/core/types.ts";
import { DEMO_TOKEN } from "./http.ts";
import { useTestServer, type SuiteServerOptions, type TestServer } from "./server.ts";
import { suiteValue } from "./suite.ts";

export interface ProviderSuite {
  server: TestServer;
  ctx: Context;
  /** Every line the modules logged through ctx, oldest first. */
  logs: string[];
}

/** One server and a Context on it for the tests of the enclosing file or describe block. */
export function useProviderContext(opts: SuiteServerOptions = {}): ProviderSuite {
  const server = useTestServer(opts);
  const logs: string[] = [];
  const ctx = suiteValue(
    "the suite's provider context",
    async (): Promise<Context> => ({
      client: new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN }),
      log: (m) => logs.push(m),
    }),
    (c) => c.client.close(),
  );
  return { server, ctx, logs };
}
