/**
 * Messages on a resource's own line in the Pulumi engine's output, from either Pulumi front end:
 * the engine's log service, with the resource's URN. The gRPC stubs come from the front end (the
 * plugin has them at hand; the dynamic provider loads the engine's own) and are asked for only
 * when there is something to say. Without an engine address (tests driving a front end directly)
 * messages go to stderr.
 */
import type * as Grpc from "@grpc/grpc-js";
import type EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import type EnginePb from "@pulumi/pulumi/proto/engine_pb.js";

export type Severity = "debug" | "info" | "warning" | "error";

export interface EngineLog {
  log(urn: string, message: string, severity?: Severity): Promise<void>;
  close(): void;
}

/** The modules that speak to the engine's log service. */
export interface EngineStubs {
  grpc: Pick<typeof Grpc, "credentials">;
  services: Pick<typeof EngineGrpc, "EngineClient">;
  messages: Pick<typeof EnginePb, "LogRequest" | "LogSeverity">;
}

const SEVERITY = { debug: "DEBUG", info: "INFO", warning: "WARNING", error: "ERROR" } as const;

/** The log of the engine at `address`, through the stubs `load` gives on the first message. */
export function engineLog(address: string | undefined, load: () => EngineStubs): EngineLog {
  if (!address) {
    return {
      async log(urn, message) {
        process.stderr.write(`cws: ${urn}: ${message}\n`);
      },
      close() {},
    };
  }
  let engine:
    { stubs: EngineStubs; client: InstanceType<EngineStubs["services"]["EngineClient"]> } | undefined;
  const connect = () => {
    const stubs = load();
    const client = new stubs.services.EngineClient(address, stubs.grpc.credentials.createInsecure());
    return { stubs, client };
  };
  return {
    log(urn, message, severity = "info") {
      engine ??= connect();
      const { messages } = engine.stubs;
      const req = new messages.LogRequest();
      req.setSeverity(messages.LogSeverity[SEVERITY[severity]]);
      req.setMessage(message);
      req.setUrn(urn);
      const { client } = engine;
      return new Promise((resolve) => client.log(req, () => resolve()));
    },
    close() {
      engine?.client.close();
    },
  };
}
