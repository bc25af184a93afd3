import * as grpc from "@grpc/grpc-js";
import emptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import statusPb from "@pulumi/pulumi/proto/status_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginCall, type PluginClient } from "../../helpers/plugin-grpc.ts";
import { CwsPlugin } from "../../../provider/native/adapter.ts";
import type { GrpcServer } from "../../../provider/frontend/grpc-server.ts";
import { HANDLED, SERVICE, STREAMED, serve } from "../../../provider/native/serve.ts";
import { SIG_KEY, encode, secret } from "../../../provider/native/values.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { startTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";

const URN = (type: string, name: string) => `urn:pulumi:dev::proj::cws:index:${type}::${name}`;
const Kind = providerPb.PropertyDiff.Kind;

describe("native plugin protocol (in-process gRPC)", () => {
  let server: GrpcServer;
  let client: PluginClient;
  const logged: string[] = [];
  beforeAll(async () => {
    const plugin = new CwsPlugin({
      version: "9.9.9",
      schema: () => "{}",
      log: { log: async (urn, m) => void logged.push(`${urn}: ${m}`), close() {} },
    });
    const s = await serve(plugin);
    server = s.server;
    client = new providerGrpc.ResourceProviderClient(
      `127.0.0.1:${s.port}`,
      grpc.credentials.createInsecure(),
    );
  });
  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });

  it("serves each RPC it answers with the path and request type of Pulumi's service definition", () => {
    const definition = providerGrpc.ResourceProviderService as unknown as Record<
      string,
      { path: string; requestType: unknown; requestStream: boolean; responseStream: boolean }
    >;
    for (const [rpc, requestType] of Object.entries(HANDLED)) {
      const method = definition[rpc[0]!.toLowerCase() + rpc.slice(1)];
      expect(method, rpc).toBeDefined();
      expect(method!.path).toBe(`/${SERVICE}/${rpc}`);
      expect(method!.requestStream).toBe(false);
      expect(method!.responseStream, rpc).toBe(STREAMED.has(rpc));
      expect(method!.requestType).toBe(requestType({ empty: emptyPb, provider: providerPb }));
    }
  });

  it("answers the RPCs it does not serve with UNIMPLEMENTED, as the engine expects of optional ones", async () => {
    for (const [method, req] of [
      ["handshake", new providerPb.ProviderHandshakeRequest()],
      ["parameterize", new providerPb.ParameterizeRequest()],
      ["getMapping", new providerPb.GetMappingRequest()],
      ["getMappings", new providerPb.GetMappingsRequest()],
      ["construct", new providerPb.ConstructRequest()],
    ] as const) {
      await expect(pluginCall(client, method, req), method).rejects.toMatchObject({
        code: grpc.status.UNIMPLEMENTED,
      });
    }
  });

  it("reports the package version", async () => {
    const info = await pluginCall<{ getVersion(): string }>(client, "getPluginInfo", new emptyPb.Empty());
    expect(info.getVersion()).toBe("9.9.9");
  });

  it("names the missing or wrong config key in CheckConfig and keeps the token secret", async () => {
    const req = new providerPb.CheckRequest();
    req.setUrn("urn:pulumi:dev::proj::pulumi:providers:cws::default");
    req.setNews(encode({ baseUrl: "not a url", apiToken: "tok-123" }));
    const saved = { org: process.env.CWS_ORG };
    delete process.env.CWS_ORG;
    try {
      const res = await pluginCall<InstanceType<typeof providerPb.CheckResponse>>(client, "checkConfig", req);
      const failures = res.getFailuresList().map((f) => [f.getProperty(), f.getReason()]);
      expect(failures).toEqual([
        ["org", expect.stringContaining("cws:org is not set")],
        ["baseUrl", expect.stringContaining("cws:baseUrl must be an http(s) URL")],
      ]);
      expect((res.getInputs()!.toJavaScript() as Record<string, unknown>).apiToken).toEqual(
        secret("tok-123"),
      );
    } finally {
      if (saved.org !== undefined) process.env.CWS_ORG = saved.org;
    }
  });

  it("checks inputs with the module's rules and returns secrets wrapped", async () => {
    const req = new providerPb.CheckRequest();
    req.setUrn(URN("Workload", "vm"));
    req.setOlds(encode({}));
    req.setNews(
      encode({
        type: "VM",
        name: "vm",
        image: "ubuntu-22.04",
        resourceName: "vm-standard",
        vmConfig: { password: "x" },
      }),
    );
    const res = await pluginCall<InstanceType<typeof providerPb.CheckResponse>>(client, "check", req);
    expect(res.getFailuresList().map((f) => f.getProperty())).toEqual(["vmConfig.password"]);
    const inputs = res.getInputs()!.toJavaScript() as Record<string, Record<string, unknown>>;
    expect(inputs.vmConfig![SIG_KEY]).toBeDefined();
  });

  it("gives a detailed diff: update, update that redeploys, replace", async () => {
    const olds = { type: "RENTAL", name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" };
    const diff = async (news: Record<string, unknown>) => {
      const req = new providerPb.DiffRequest();
      req.setId("wl-1");
      req.setUrn(URN("Workload", "web"));
      req.setOlds(encode(olds));
      req.setNews(encode({ ...olds, ...news }));
      return pluginCall<InstanceType<typeof providerPb.DiffResponse>>(client, "diff", req);
    };
    // A refresh diffs what it read without a check first: nothing is said of what up would do.
    const refreshed = await diff({ image: "nginx:1.28" });
    expect(refreshed.getChanges()).toBe(providerPb.DiffResponse.DiffChanges.DIFF_SOME);
    expect(logged.filter((l) => l.includes("redeploys"))).toEqual([]);
    // A preview checks the program's inputs, then diffs them: the redeploy is said.
    const check = new providerPb.CheckRequest();
    check.setUrn(URN("Workload", "web"));
    check.setOlds(encode(olds));
    check.setNews(encode({ ...olds, image: "nginx:1.28" }));
    await pluginCall(client, "check", check);
    const image = await diff({ image: "nginx:1.28" });
    expect(image.getChanges()).toBe(providerPb.DiffResponse.DiffChanges.DIFF_SOME);
    expect(image.getHasdetaileddiff()).toBe(true);
    expect(image.getDetaileddiffMap().get("image")!.getKind()).toBe(Kind.UPDATE);
    expect(image.getReplacesList()).toEqual([]);
    expect(logged).toContain(
      `${URN("Workload", "web")}: image changes: the service redeploys workload web (restart)`,
    );

    const shape = await diff({ resourceName: "gpu-rental-medium" });
    expect(shape.getDetaileddiffMap().get("resourceName")!.getKind()).toBe(Kind.UPDATE_REPLACE);
    expect(shape.getReplacesList()).toEqual(["resourceName"]);

    const same = await diff({});
    expect(same.getChanges()).toBe(providerPb.DiffResponse.DiffChanges.DIFF_NONE);
  });

  it("refuses resource calls before Configure with the reason", async () => {
    const req = new providerPb.CreateRequest();
    req.setUrn(URN("SshKey", "k"));
    req.setProperties(encode({ name: "k", publicKey: "ssh-ed25519 AAAA" }));
    await expect(pluginCall(client, "create", req)).rejects.toThrow(/not configured/);
  });

  it("Cancel stops a create that waits for running, promptly, and the workload stays on the service", async () => {
    const slow = await startTestServer({ provisionDelayMs: 30_000 });
    try {
      const configure = new providerPb.ConfigureRequest();
      configure.setArgs(encode({ baseUrl: slow.baseUrl, org: "demo", apiToken: DEMO_TOKEN }));
      configure.setAcceptsecrets(true);
      await pluginCall(client, "configure", configure);
      const req = new providerPb.CreateRequest();
      req.setUrn(URN("Workload", "slow"));
      req.setProperties(
        encode({ type: "RENTAL", name: "slow", image: "nginx:1.27", resourceName: "gpu-rental-small" }),
      );
      const started = Date.now();
      const created = pluginCall(client, "create", req).then(
        () => undefined,
        (e: Error) => e,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      await pluginCall(client, "cancel", new emptyPb.Empty());
      const err = (await created) as grpc.ServiceError | undefined;
      const waited = Date.now() - started;
      expect(err?.message).toMatch(/did not come up/);
      // The workload exists: the engine keeps it as partial state, from the error's status details.
      const [details] = err!.metadata.get("grpc-status-details-bin") as Buffer[];
      const status = statusPb.Status.deserializeBinary(new Uint8Array(details!));
      expect(status.getMessage()).toMatch(/did not come up/);
      const [any] = status.getDetailsList();
      expect(any!.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
      const partial = providerPb.ErrorResourceInitFailed.deserializeBinary(any!.getValue_asU8());
      expect(partial.getId()).toMatch(/.+/);
      expect((partial.getProperties()!.toJavaScript() as { name?: string }).name).toBe("slow");
      expect(waited).toBeLessThan(5_000);
      expect((await liveResources(slow)).workloads.map((w) => w.name)).toContain("slow");
    } finally {
      await slow.close();
    }
  });
});
