/**
 * A warning on a resource's own line from the dynamic provider's process: the engine's log
 * service, whose address the engine gives that process as its first argument. The gRPC stubs are
 * the ones of the @pulumi/pulumi that runs the process, loaded only when there is something to say.
 */
import { createRequire } from "node:module";

interface LogClient {
  log(req: unknown, done: () => void): void;
}

let client: LogClient | undefined;
let pb: { LogRequest: new () => Record<string, (v: unknown) => void>; LogSeverity: Record<string, number> };

function engine(): LogClient | undefined {
  const address = process.argv[2];
  if (!address || !/^[\w.-]+:\d+$/.test(address)) return undefined;
  if (!client) {
    const require = createRequire(import.meta.url);
    const grpc = require("@grpc/grpc-js") as { credentials: { createInsecure(): unknown } };
    const stubs = require("@pulumi/pulumi/proto/engine_grpc_pb.js") as {
      EngineClient: new (address: string, credentials: unknown) => LogClient;
    };
    pb = require("@pulumi/pulumi/proto/engine_pb.js") as typeof pb;
    client = new stubs.EngineClient(address, grpc.credentials.createInsecure());
  }
  return client;
}

/** Says `message` as a warning on the resource `urn`; on stderr when there is no engine to tell. */
export async function say(urn: string, message: string): Promise<void> {
  const c = engine();
  if (!c) {
    process.stderr.write(`cws: ${message}\n`);
    return;
  }
  const req = new pb.LogRequest();
  req.setSeverity!(pb.LogSeverity.WARNING);
  req.setMessage!(message);
  req.setUrn!(urn);
  await new Promise<void>((resolve) => c.log(req, () => resolve()));
}
