/**
 * The native plugin's List RPC (`pulumi do cws:<Kind> list`) over its gRPC server, as the engine
 * calls it: pages on the API's cursors, `limit` and `page_size` honoured (the limit changing page to
 * page, as `--count` sends it), pages that the list's rules thin out (a deleted workload) still
 * never answered empty while more follow, a lone Computed for unknowns, and clear errors for a bad
 * filter, a kind with no list and a bad token. The CLI's own runs are test/e2e/pulumi/do.test.ts.
 */
import * as grpc from "@grpc/grpc-js";
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOrg } from "../../../provider/adopt/inventory.ts";
import { UNKNOWN } from "../../../provider/core/unknowns.ts";
import type { GrpcServer } from "../../../provider/frontend/grpc-server.ts";
import { CwsPlugin } from "../../../provider/native/adapter.ts";
import { serve } from "../../../provider/native/serve.ts";
import { encode } from "../../../provider/native/values.ts";
import { clientFor } from "../../helpers/adopt-org.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";

const server = useTestServer();
type Client = InstanceType<typeof providerGrpc.ResourceProviderClient>;

interface Answer {
  results: { id: string; name: string }[];
  continuation?: string;
  computed: boolean;
}

function list(
  client: Client,
  token: string,
  query: Record<string, unknown> = {},
  more: { limit?: number; pageSize?: number; continuation?: string } = {},
): Promise<Answer> {
  const req = new providerPb.ListRequest();
  req.setToken(`cws:index:${token}`);
  req.setQuery(encode(query));
  req.setLimit(more.limit ?? 0);
  req.setPageSize(more.pageSize ?? 0);
  req.setContinuationToken(more.continuation ?? "");
  const answer: Answer = { results: [], computed: false };
  return new Promise((resolve, reject) => {
    const stream = (client as unknown as { list(r: unknown): grpc.ClientReadableStream<unknown> }).list(req);
    stream.on("data", (m: InstanceType<typeof providerPb.ListResponse>) => {
      const r = m.getResult();
      if (r) answer.results.push({ id: r.getId(), name: r.getName() });
      if (m.hasContinuation()) answer.continuation = m.getContinuation()!.getContinuationToken();
      if (m.hasComputed()) answer.computed = true;
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(answer));
  });
}

/** The message of the error a call ends with (the status message, percent-decoded as Go's gRPC does). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => "",
    (e: grpc.ServiceError) => decodeURIComponent(e.details),
  );

/** Every page from the first, each with `limit` = what `count` still wants (the CLI's `--count`). */
async function follow(client: Client, token: string, query: Record<string, unknown>, count = 0) {
  const pages: Answer[] = [];
  let continuation: string | undefined;
  let got = 0;
  do {
    const page = await list(client, token, query, {
      limit: count ? count - got : 0,
      pageSize: 2,
      continuation,
    });
    pages.push(page);
    got += page.results.length;
    continuation = page.continuation;
  } while (continuation && (!count || got < count));
  return pages;
}

describe("native plugin: List", () => {
  let grpcServer: GrpcServer;
  let client: Client;
  const names = ["web-1", "web-2", "web-3", "web-4", "web-5"];
  beforeAll(async () => {
    const plugin = new CwsPlugin({
      version: "9.9.9",
      schema: () => "{}",
      log: { log: async () => {}, close() {} },
    });
    const s = await serve(plugin);
    grpcServer = s.server;
    client = new providerGrpc.ResourceProviderClient(
      `127.0.0.1:${s.port}`,
      grpc.credentials.createInsecure(),
    );
    const configure = new providerPb.ConfigureRequest();
    configure.setArgs(encode({ baseUrl: server.baseUrl, org: "demo", apiToken: DEMO_TOKEN }));
    await new Promise((resolve, reject) =>
      client.configure(configure, (e, r) => (e ? reject(e) : resolve(r))),
    );
    // Five RENTAL workloads, the second deleted: the service still lists it, the list leaves it out.
    const api = clientFor(server);
    const uids: string[] = [];
    for (const name of names)
      uids.push(
        (
          await api.workloads.create({
            type: "RENTAL",
            name,
            image: "nginx:1.27",
            resource_name: "gpu-rental-small",
          })
        ).uid,
      );
    await api.workloads.delete(uids[1]!);
    await api.workloads.waitForStatus(uids[1]!, "deleted", { timeoutMs: 30_000 });
  });
  afterAll(() => {
    client?.close();
    grpcServer?.forceShutdown();
  });

  it("pages on the API's cursors: the same objects as cws adopt, each page at most page_size, none empty", async () => {
    const adopted = (await listOrg(clientFor(server), undefined, ["Workload"])).map((l) => ({
      id: l.uid,
      name: l.name,
    }));
    expect(adopted.map((a) => a.name).sort()).toEqual(["web-1", "web-3", "web-4", "web-5"]);
    const pages = await follow(client, "Workload", {});
    expect(pages.flatMap((p) => p.results)).toEqual(adopted);
    for (const p of pages) expect(p.results.length).toBeGreaterThan(0);
    expect(pages.map((p) => p.results.length)).toEqual([2, 2]);
    expect(pages.at(-1)!.continuation).toBeUndefined();
    // The continuation is the API's own cursor: the route goes on from it where the page stopped.
    const route = await clientFor(server).workloads.list({ cursor: pages[0]!.continuation! });
    expect(route.items.map((w) => w.name)).toEqual(["web-4", "web-5"]);
  });

  it("honours a limit that changes page to page, and pages of PAGE without limit or page size", async () => {
    const three = await follow(client, "Workload", {}, 3);
    expect(three.flatMap((p) => p.results).map((r) => r.name)).toEqual(["web-1", "web-3", "web-4"]);
    expect(three.map((p) => p.results.length)).toEqual([2, 1]);
    const one = await list(client, "Workload", {}, { limit: 1 });
    expect(one.results.map((r) => r.name)).toEqual(["web-1"]);
    expect(one.continuation).toBeTruthy();
    const whole = await list(client, "Workload", {});
    expect(whole.results).toHaveLength(4);
    expect(whole.continuation).toBeUndefined();
  });

  it("applies the list's filters, and answers a query with unknowns with a lone Computed", async () => {
    expect((await list(client, "Workload", { name: "web-3" })).results.map((r) => r.name)).toEqual(["web-3"]);
    expect((await list(client, "Workload", { type: "VM" })).results).toEqual([]);
    expect((await list(client, "SshKey", {})).results).toEqual([]);
    const computed = await list(client, "Workload", { name: UNKNOWN });
    expect(computed).toEqual({ results: [], computed: true });
  });

  it("names the filter and its rule, the kinds that list, and the service's refusal of a bad token", async () => {
    expect(await failure(list(client, "Workload", { type: "SANDBOX" }))).toMatch(
      /invalid list inputs for cws:index:Workload:\n- type: type must be one of RENTAL, VM, BM/,
    );
    expect(await failure(list(client, "Volume", { colour: "red" }))).toMatch(
      /colour: colour is not a filter of this list: workloadUid/,
    );
    expect(await failure(list(client, "Provider", {}))).toMatch(
      /cws:index:Provider cannot be listed; these can: /,
    );
    const configure = new providerPb.ConfigureRequest();
    configure.setArgs(encode({ baseUrl: server.baseUrl, org: "demo", apiToken: "not-a-token" }));
    await new Promise((resolve, reject) =>
      client.configure(configure, (e, r) => (e ? reject(e) : resolve(r))),
    );
    expect(await failure(list(client, "Workload", {}))).toMatch(/401|token/i);
  });
});
