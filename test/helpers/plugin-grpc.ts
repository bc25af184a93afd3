/** A gRPC client of a Pulumi resource plugin, a call of it as a promise, and what it says of itself. */
import * as grpc from "@grpc/grpc-js";
import emptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";

export type PluginClient = InstanceType<typeof providerGrpc.ResourceProviderClient>;

/** A client of the plugin listening on `port` of this host (the port its first line printed). */
export const pluginClient = (port: string | number): PluginClient =>
  new providerGrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

/** `client.method(req)` as a promise of its answer. */
export const pluginCall = <Res>(client: PluginClient, method: string, req: unknown): Promise<Res> =>
  new Promise((resolve, reject) =>
    (client as unknown as Record<string, (r: unknown, cb: (e: Error | null, r: Res) => void) => void>)[
      method
    ]!(req, (e, r) => (e ? reject(e) : resolve(r))),
  );

/** The plugin's version (GetPluginInfo) and its schema (GetSchema), parsed. */
export async function pluginIdentity(client: PluginClient): Promise<{ version: string; schema: unknown }> {
  const info = await pluginCall<{ getVersion(): string }>(client, "getPluginInfo", new emptyPb.Empty());
  const schema = await pluginCall<{ getSchema(): string }>(
    client,
    "getSchema",
    new providerPb.GetSchemaRequest(),
  );
  return { version: info.getVersion(), schema: JSON.parse(schema.getSchema()) };
}
