/**
 * The provider's gRPC serving, as a go-plugin server (the way OpenTofu and Terraform start
 * providers): the magic cookie check, gRPC on a local port (mutual TLS when the client passes its
 * certificate in PLUGIN_CLIENT_CERT), the handshake line on stdout
 * (`1|6|tcp|127.0.0.1:PORT|grpc|<server certificate, base64>`), the controller's Shutdown and
 * the health check. Every tfplugin6 RPC the provider answers is a method of the adapter
 * (TofuProvider); an error it throws becomes an error diagnostic of that call. The service
 * definitions come from protocol.ts (precompiled by the build).
 */
import * as grpc from "@grpc/grpc-js";
import type * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import { errorDiag, messageOf } from "./diagnostics.ts";
import type { TofuProvider } from "./adapter.ts";
import { loadServices } from "./protocol.ts";
import { pluginCertificate } from "./tls-cert.ts";

export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
const PROTOCOL_VERSION = "6";

type Service = grpc.ServiceDefinition;

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

/** `GetProviderSchema` → `getProviderSchema`. */
const methodName = (rpc: string) => rpc[0]!.toLowerCase() + rpc.slice(1);

function providerImplementation(service: Service, provider: TofuProvider): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  for (const rpc of Object.keys(service)) {
    const method = (provider as unknown as Record<string, unknown>)[methodName(rpc)];
    if (typeof method !== "function") continue; // left out: UNIMPLEMENTED
    impl[rpc] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      Promise.resolve()
        .then(() => (method as (req: unknown) => unknown).call(provider, call.request))
        .then(
          (res) => callback(null, res),
          (e: unknown) => callback(null, { diagnostics: [errorDiag(messageOf(e))] }),
        );
    };
  }
  return impl;
}

export interface Served {
  server: grpc.Server;
  /** The go-plugin handshake line (without the newline). */
  handshake: string;
}

/** Starts the provider's gRPC server on a free local port and returns it with the handshake line. */
export async function serve(provider: TofuProvider, env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  const s = await loadServices();
  const server = new grpc.Server({ "grpc.max_receive_message_length": 256 << 20 });
  server.addService(s.provider, providerImplementation(s.provider, provider));
  server.addService(s.controller, {
    Shutdown: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => {
      callback(null, {});
      setImmediate(() => server.tryShutdown(() => process.exit(0)));
    },
  });
  server.addService(s.health, {
    Check: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { status: "SERVING" }),
  });
  const clientCert = env.PLUGIN_CLIENT_CERT;
  let credentials = grpc.ServerCredentials.createInsecure();
  let certField = "";
  if (clientCert) {
    const cert = pluginCertificate();
    credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(clientCert),
      [{ private_key: Buffer.from(cert.keyPem), cert_chain: Buffer.from(cert.certPem) }],
      true,
    );
    certField = `|${cert.der.toString("base64").replace(/=+$/, "")}`;
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (err, p) => (err ? reject(err) : resolve(p))),
  );
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
