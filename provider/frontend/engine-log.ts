/**
 * Messages on a resource's own line in the Pulumi engine's output, from either Pulumi front end:
 * the engine's log service, with the resource's URN. The gRPC stubs come from the front end (the
 * plugin loads its own, the dynamic provider the engine's) and are asked for only when there is
 * something to say. Without an engine address (tests driving a front end directly)
 * messages go to stderr.
 */
import type * as Grpc from "@grpc/grpc-js";
import type EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import type EnginePb from "@pulumi/pulumi/proto/engine_pb.js";

export type Severity = "debug" | "info" | "warning" | "error";

export interface EngineLog {
  /**
   * `ephemeral`: a status message, shown on the resource's line of the engine's progress display
   * until the next replaces it, and not kept among the run's diagnostics.
   */
  log(urn: string, message: string, severity?: Severity, ephemeral?: boolean): Promise<void>;
  close(): void;
}

/** The modules that speak to the engine's log service. */
export interface EngineStubs {
  grpc: Pick<typeof Grpc, "credentials">;
  services: Pick<typeof EngineGrpc, "EngineClient">;
  messages: Pick<typeof EnginePb, "LogRequest" | "LogSeverity">;
}

const SEVERITY = { debug: "DEBUG", info: "INFO", warning: "WARNING", error: "ERROR" } as const;

/**
 * The log of the engine at `address`, through the stubs `load` gives (or resolves to) on the first
 * message. Messages keep their order; one that cannot reach the engine goes to stderr, never fails
 * the call that said it.
 */
export function engineLog(
  address: string | undefined,
  load: () => EngineStubs | Promise<EngineStubs>,
): EngineLog {
  const toStderr = (urn: string, message: string) => void process.stderr.write(`cws: ${urn}: ${message}\n`);
  if (!address) {
    return {
      async log(urn, message) {
        toStderr(urn, message);
      },
      close() {},
    };
  }
  type Engine = { stubs: EngineStubs; client: InstanceType<EngineStubs["services"]["EngineClient"]> };
  let engine: Promise<Engine> | undefined;
  let closed = false;
  const connect = async (): Promise<Engine> => {
    const stubs = await load();
    const client = new stubs.services.EngineClient(address, stubs.grpc.credentials.createInsecure());
    if (closed) client.close();
    return { stubs, client };
  };
  return {
    log(urn, message, severity = "info", ephemeral = false) {
      engine ??= connect();
      return engine.then(
        ({ stubs: { messages }, client }) => {
          const req = new messages.LogRequest();
          req.setSeverity(messages.LogSeverity[SEVERITY[severity]]);
          req.setMessage(message);
          req.setUrn(urn);
          req.setEphemeral(ephemeral);
          return new Promise<void>((resolve) => client.log(req, () => resolve()));
        },
        () => toStderr(urn, message),
      );
    },
    close() {
      closed = true;
      void engine?.then(
        (e) => e.client.close(),
        () => {},
      );
    },
  };
}
