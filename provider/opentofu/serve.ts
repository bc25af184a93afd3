/**
 * The provider's gRPC serving, as a go-plugin server (the way OpenTofu and Terraform start
 * providers): the magic cookie check, gRPC on a local port (mutual TLS when the client passes its
 * certificate in PLUGIN_CLIENT_CERT), the handshake line on stdout
 * (`1|6|tcp|127.0.0.1:PORT|grpc|<server certificate, base64>`), the controller's Shutdown and
 * the health check. Every tfplugin6 RPC the provider answers is a method of the adapter
 * (TofuProvider); an error it throws becomes an error diagnostic of that call (of a stream's last
 * event); one it does not have is UNIMPLEMENTED. The service definitions come from protocol.ts
 * (precompiled by the build), the serving from frontend/grpc-server.ts (unary calls and server
 * streams over node:http2).
 */
import type * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import type { TofuProvider } from "./adapter.ts";
import {
  adapterOnFirstCall,
  rpcMethodName,
  Status,
  StatusError,
  GrpcServer,
  type CallInfo,
  type GrpcHandler,
} from "../frontend/grpc-server.ts";
import { loadServices, type Services } from "./protocol.ts";
import { staticAnswer } from "./static-answers.ts";
import { pluginCertificate } from "./tls-cert.ts";

export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
const PROTOCOL_VERSION = "6";
/** The largest request accepted (a plan of a large configuration). */
const MAX_MESSAGE_BYTES = 256 << 20;
/** How long Shutdown waits for its answer to leave before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 200;

/**
 * How messages look to the provider, as @grpc/proto-loader options (what a client of the vendored
 * .proto files, such as a test, loads them with): field names as in the .proto files, enums by name.
 */
export const PROTO_OPTIONS: protoLoader.Options = {
  includeDirs: [fileURLToPath(new URL("./vendor/", import.meta.url))],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * How each server-streaming RPC's event carries diagnostics: an error the adapter's stream throws
 * ends it with one more event holding the error, as the provider's other errors are diagnostics.
 */
const STREAM_ERROR_EVENT: Record<string, (diagnostic: unknown) => unknown> = {
  ListResource: (d) => ({ diagnostic: [d] }),
  InvokeAction: (d) => ({ completed: { diagnostics: [d] } }),
};

/** An error as the diagnostic OpenTofu shows. */
async function errorDiagnostic(e: unknown): Promise<unknown> {
  // Loaded with the adapter (it names attributes in HCL terms, with the contract's names).
  const { errorDiag, messageOf } = await import("./diagnostics.ts");
  return errorDiag(messageOf(e));
}

/** The events of a stream the adapter answers, then its error as one more event if it throws. */
async function* withErrorEvent(
  events: AsyncIterable<unknown> | Iterable<unknown>,
  errorEvent: (diagnostic: unknown) => unknown,
): AsyncGenerator<unknown> {
  try {
    yield* events;
  } catch (e) {
    yield errorEvent(await errorDiagnostic(e));
  }
}

/**
 * The handlers of the provider's RPCs, each the adapter's method of the same name, called with the
 * request and the call (its cancel signal); the adapter is given, or loaded by the first call (see
 * main.ts). An RPC it has no method for is UNIMPLEMENTED. A server-streaming RPC's method answers
 * with an iterable or async iterable of events.
 */
function providerHandlers(
  service: Services["provider"],
  provider: TofuProvider | (() => Promise<TofuProvider>),
): Record<string, GrpcHandler> {
  const adapter = adapterOnFirstCall(provider);
  const handlers: Record<string, GrpcHandler> = {};
  for (const rpc of Object.keys(service)) {
    let answer: Buffer | undefined | null = null;
    handlers[rpc] = async (request, call) => {
      // Answered from the build's bytes when it made them: the adapter is not loaded for these.
      if (answer === null) answer = staticAnswer(rpc);
      if (answer) return answer;
      const p = await adapter();
      const method = (p as unknown as Record<string, unknown>)[rpcMethodName(rpc)];
      if (typeof method !== "function")
        throw new StatusError(Status.UNIMPLEMENTED, `${rpc} is not implemented`);
      const errorEvent = STREAM_ERROR_EVENT[rpc];
      try {
        const answer = await (method as (req: unknown, c: CallInfo) => unknown).call(p, request, call);
        return errorEvent
          ? withErrorEvent(answer as AsyncIterable<unknown> | Iterable<unknown>, errorEvent)
          : answer;
      } catch (e) {
        const diagnostic = await errorDiagnostic(e);
        return errorEvent ? [errorEvent(diagnostic)] : { diagnostics: [diagnostic] };
      }
    };
  }
  return handlers;
}

export interface Served {
  /** `forceShutdown()` stops it at once (the process exits by itself on the controller's Shutdown). */
  server: GrpcServer;
  /** The go-plugin handshake line (without the newline). */
  handshake: string;
}

/**
 * Starts the provider's gRPC server on a free local port and returns it with the handshake line.
 * `provider` is the adapter, or what loads it: then the first call does, and the handshake line
 * does not wait for the resource modules.
 */
export async function serve(
  provider: TofuProvider | (() => Promise<TofuProvider>),
  env: NodeJS.ProcessEnv = process.env,
): Promise<Served> {
  const s = await loadServices();
  const clientCert = env.PLUGIN_CLIENT_CERT;
  const cert = clientCert ? pluginCertificate() : undefined;
  const server = new GrpcServer({
    maxMessageBytes: MAX_MESSAGE_BYTES,
    tls:
      cert && clientCert
        ? { keyPem: cert.keyPem, certPem: cert.certPem, clientCertPem: clientCert }
        : undefined,
  });
  server.add(s.provider, providerHandlers(s.provider, provider));
  server.add(s.controller, {
    // OpenTofu ends each provider process this way, and waits for it to exit.
    Shutdown: (_req, call) => {
      const exit = () => process.exit(0);
      void call.done.then(exit);
      setTimeout(exit, SHUTDOWN_GRACE_MS).unref();
      return {};
    },
  });
  server.add(s.health, { Check: () => ({ status: "SERVING" }) });
  const port = await server.listen("127.0.0.1");
  const certField = cert ? `|${cert.der.toString("base64").replace(/=+$/, "")}` : "";
  return { server, handshake: `1|${PROTOCOL_VERSION}|tcp|127.0.0.1:${port}|grpc${certField}` };
}

/** Why this process cannot serve the client that started it, or undefined when it can. */
export function refusal(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    return "This binary is a plugin. It is not meant to be run directly: OpenTofu or Terraform starts it (see docs/opentofu.md).";
  }
  const versions = (env.PLUGIN_PROTOCOL_VERSIONS ?? PROTOCOL_VERSION).split(",").map((v) => v.trim());
  if (!versions.includes(PROTOCOL_VERSION)) {
    return `this provider speaks plugin protocol ${PROTOCOL_VERSION}; the client asks for ${versions.join(", ")} (OpenTofu >= 1.6 or Terraform >= 1.0 speak it)`;
  }
  return undefined;
}
