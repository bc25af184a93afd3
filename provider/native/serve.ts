/**
 * The plugin's gRPC serving: Pulumi's ResourceProviderService on a free local port, each RPC
 * answered by a method of the adapter (CwsPlugin), errors as gRPC errors.
 */
import * as grpc from "@grpc/grpc-js";
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type { CwsPlugin } from "./adapter.ts";

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;
type Callback = grpc.sendUnaryData<unknown>;

/** The RPCs the plugin answers, each by its method of the same name. */
const HANDLED = [
  "getPluginInfo",
  "getSchema",
  "checkConfig",
  "diffConfig",
  "configure",
  "cancel",
  "check",
  "diff",
  "create",
  "read",
  "update",
  "delete",
  "invoke",
] as const;

/**
 * The gRPC service implementation: each RPC answered by the plugin, errors as gRPC errors. RPCs
 * left out (Handshake, Construct, Call, List, Attach, mappings) get UNIMPLEMENTED from grpc-js,
 * which the engine accepts for all of them. `plugin` is the adapter, or what loads it: then the
 * first call does.
 */
export function serviceImplementation(
  plugin: CwsPlugin | (() => Promise<CwsPlugin>),
): grpc.UntypedServiceImplementation {
  let loaded: Promise<CwsPlugin> | undefined;
  const adapter = () => (loaded ??= typeof plugin === "function" ? plugin() : Promise.resolve(plugin));
  const impl: grpc.UntypedServiceImplementation = {};
  for (const name of HANDLED) {
    impl[name] = (call: Call<unknown>, callback: Callback) => {
      adapter()
        .then((p) => (p[name] as (req: unknown) => unknown).call(p, call.request))
        .then(
          (res) => callback(null, res),
          (e: unknown) =>
            callback(
              e && typeof e === "object" && "code" in e
                ? (e as grpc.ServiceError)
                : { code: grpc.status.UNKNOWN, details: e instanceof Error ? e.message : String(e) },
            ),
        );
    };
  }
  return impl;
}

/** Starts the plugin's gRPC server on a free local port and returns the port. */
export async function serve(
  plugin: CwsPlugin | (() => Promise<CwsPlugin>),
): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1 << 30 });
  server.addService(providerGrpc.ResourceProviderService, serviceImplementation(plugin));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port, server };
}
