/** A gRPC client of a Pulumi resource plugin, and a call of it as a promise. */
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";

export type PluginClient = InstanceType<typeof providerGrpc.ResourceProviderClient>;

/** `client.method(req)` as a promise of its answer. */
export const pluginCall = <Res>(client: PluginClient, method: string, req: unknown): Promise<Res> =>
  new Promise((resolve, reject) =>
    (client as unknown as Record<string, (r: unknown, cb: (e: Error | null, r: Res) => void) => void>)[
      method
    ]!(req, (e, r) => (e ? reject(e) : resolve(r))),
  );
