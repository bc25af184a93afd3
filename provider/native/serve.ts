/**
 * The plugin's gRPC serving: Pulumi's ResourceProviderService on a free local port, each RPC
 * answered by a method of the adapter (CwsPlugin), errors as gRPC errors. The serving is the
 * front ends' own unary gRPC over node:http2 (frontend/grpc-server.ts), and nothing of Pulumi's
 * generated protocol modules is loaded before the first call: the port line waits for neither a
 * gRPC library nor the message classes.
 */
import type EmptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import type ProviderPb from "@pulumi/pulumi/proto/provider_pb.js";
import {
  adapterOnFirstCall,
  rpcMethodName,
  GrpcServer,
  type CallInfo,
  type GrpcHandler,
  type GrpcMethod,
} from "../frontend/grpc-server.ts";
import type { CwsPlugin } from "./adapter.ts";

/** The service, as its methods' paths name it (`/pulumirpc.ResourceProvider/Check`). */
export const SERVICE = "pulumirpc.ResourceProvider";

/** The largest request accepted (a Check or Update of a large resource). */
const MAX_MESSAGE_BYTES = 1 << 30;

/** The message classes the requests are decoded with. */
interface Messages {
  empty: typeof EmptyPb;
  provider: typeof ProviderPb;
}

interface Decoder {
  deserializeBinary(bytes: Uint8Array): unknown;
}

/**
 * The RPCs the plugin answers, each by the adapter's method of the same name in lower camel case
 * (`GetPluginInfo` → `getPluginInfo`), with its request's message class (as in Pulumi's generated
 * `provider_grpc_pb.js`; test/provider/native/protocol.test.ts holds them to it). RPCs left out
 * (Handshake, Parameterize, Construct, Call, Attach, GetMapping(s)) are UNIMPLEMENTED, as a
 * gRPC server answers a method it does not serve, which the engine takes as "not supported" for
 * all of them.
 */
export const HANDLED = {
  GetPluginInfo: (m: Messages) => m.empty.Empty,
  GetSchema: (m: Messages) => m.provider.GetSchemaRequest,
  CheckConfig: (m: Messages) => m.provider.CheckRequest,
  DiffConfig: (m: Messages) => m.provider.DiffRequest,
  Configure: (m: Messages) => m.provider.ConfigureRequest,
  Cancel: (m: Messages) => m.empty.Empty,
  Check: (m: Messages) => m.provider.CheckRequest,
  Diff: (m: Messages) => m.provider.DiffRequest,
  Create: (m: Messages) => m.provider.CreateRequest,
  Read: (m: Messages) => m.provider.ReadRequest,
  Update: (m: Messages) => m.provider.UpdateRequest,
  Delete: (m: Messages) => m.provider.DeleteRequest,
  Invoke: (m: Messages) => m.provider.InvokeRequest,
  List: (m: Messages) => m.provider.ListRequest,
} satisfies Record<string, (m: Messages) => Decoder>;

/** The RPCs that answer with a server stream (List: its results, then where the next page starts). */
export const STREAMED: ReadonlySet<string> = new Set(["List"]);

type Rpc = keyof typeof HANDLED;

let messages: Promise<Messages> | undefined;
/** The message classes, loaded by the first call (the adapter loads them too). */
function loadMessages(): Promise<Messages> {
  return (messages ??= Promise.all([
    import("google-protobuf/google/protobuf/empty_pb.js"),
    import("@pulumi/pulumi/proto/provider_pb.js"),
  ]).then(([empty, provider]) => ({ empty: empty.default, provider: provider.default })));
}

/**
 * The service's methods as the server takes them: the request's bytes are handed on as they came
 * (the handler decodes them once the message classes are loaded), the response is a generated
 * message, which encodes itself.
 */
const METHODS: Record<string, GrpcMethod> = Object.fromEntries(
  Object.keys(HANDLED).map((rpc) => [
    rpc,
    {
      path: `/${SERVICE}/${rpc}`,
      responseStream: STREAMED.has(rpc),
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (message: unknown) =>
        Buffer.from((message as { serializeBinary(): Uint8Array }).serializeBinary()),
    },
  ]),
);

/**
 * The handlers of the RPCs, each the adapter's method; an error it throws is the call's gRPC error
 * (a StatusError as it is, with its details; anything else UNKNOWN with its message); a streamed
 * RPC's method answers with the messages to send, and learns of the call (its cancel). `plugin` is
 * the adapter, or what loads it: then the first call does.
 */
export function handlers(plugin: CwsPlugin | (() => Promise<CwsPlugin>)): Record<string, GrpcHandler> {
  const adapter = adapterOnFirstCall(plugin);
  const out: Record<string, GrpcHandler> = {};
  for (const rpc of Object.keys(HANDLED) as Rpc[]) {
    const name = rpcMethodName(rpc) as keyof CwsPlugin;
    out[rpc] = async (bytes, call) => {
      const [p, m] = await Promise.all([adapter(), loadMessages()]);
      const request = HANDLED[rpc](m).deserializeBinary(new Uint8Array(bytes as Buffer));
      return await (p[name] as (req: unknown, call: CallInfo) => unknown).call(p, request, call);
    };
  }
  return out;
}

/** Starts the plugin's gRPC server on a free local port and returns the port. */
export async function serve(
  plugin: CwsPlugin | (() => Promise<CwsPlugin>),
): Promise<{ port: number; server: GrpcServer }> {
  const server = new GrpcServer({ maxMessageBytes: MAX_MESSAGE_BYTES });
  server.add(METHODS, handlers(plugin));
  const port = await server.listen("127.0.0.1");
  return { port, server };
}
