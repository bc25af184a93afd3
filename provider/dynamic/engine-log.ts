/**
 * The dynamic provider's engine log (frontend/engine-log.ts): the engine gives its provider
 * process the address of its log service as the first argument. The gRPC stubs are the ones of
 * the @pulumi/pulumi that runs the process, loaded only when there is something to say.
 */
import { createRequire } from "node:module";
import { engineLog, type EngineStubs } from "../frontend/engine-log.ts";

function stubs(): EngineStubs {
  const require = createRequire(import.meta.url);
  return {
    grpc: require("@grpc/grpc-js") as EngineStubs["grpc"],
    services: require("@pulumi/pulumi/proto/engine_grpc_pb.js") as EngineStubs["services"],
    messages: require("@pulumi/pulumi/proto/engine_pb.js") as EngineStubs["messages"],
  };
}

const address = process.argv[2];

/** The engine's log; stderr when the process was not started by an engine. */
export const engine = engineLog(address && /^[\w.-]+:\d+$/.test(address) ? address : undefined, stubs);
