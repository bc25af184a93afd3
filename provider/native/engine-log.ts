/**
 * Messages on a resource's own line: the engine's log service, with the resource's URN. Without
 * an engine address (tests driving the server directly) messages go to stderr.
 */
import * as grpc from "@grpc/grpc-js";
import engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import enginePb from "@pulumi/pulumi/proto/engine_pb.js";

export type Severity = "debug" | "info" | "warning" | "error";

const SEVERITY = {
  debug: enginePb.LogSeverity.DEBUG,
  info: enginePb.LogSeverity.INFO,
  warning: enginePb.LogSeverity.WARNING,
  error: enginePb.LogSeverity.ERROR,
};

export interface EngineLog {
  log(urn: string, message: string, severity?: Severity): Promise<void>;
  close(): void;
}

export function engineLog(address: string | undefined): EngineLog {
  if (!address) {
    return {
      async log(urn, message) {
        process.stderr.write(`cws: ${urn}: ${message}\n`);
      },
      close() {},
    };
  }
  const client = new engineGrpc.EngineClient(address, grpc.credentials.createInsecure());
  return {
    log(urn, message, severity = "info") {
      const req = new enginePb.LogRequest();
      req.setSeverity(SEVERITY[severity]);
      req.setMessage(message);
      req.setUrn(urn);
      return new Promise((resolve) => client.log(req, () => resolve()));
    },
    close() {
      client.close();
    },
  };
}
