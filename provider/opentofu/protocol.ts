/**
 * The protocol the provider serves, as service definitions: tfplugin6's Provider, go-plugin's
 * GRPCController and gRPC's Health, from the .proto files vendored in vendor/. Messages look as
 * the adapter expects them: field names as in the .proto files, enums by name, 64-bit integers as
 * numbers, defaults filled in, oneofs named (proto-codec.ts).
 *
 * The build (scripts/build.ts) compiles the .proto files once into the codec's descriptor beside
 * the compiled code (vendor/protocol.json): nothing is parsed, and no code is generated, when the
 * provider starts. Run from the sources, where that file is not, the .proto files are compiled at
 * start (protocol-source.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { rpcMethodName } from "../frontend/grpc-server.ts";
import { Codec, type ProtocolDescriptor } from "./proto-codec.ts";

/** The descriptor the build writes, relative to this module (and to the bundle beside it). */
const DESCRIPTOR = new URL("./vendor/protocol.json", import.meta.url);

export interface Services {
  provider: grpc.ServiceDefinition;
  controller: grpc.ServiceDefinition;
  health: grpc.ServiceDefinition;
}

/** One service's definition: each method's path, and its messages' codec. */
function serviceDefinition(codec: Codec, name: string): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [method, { request, response, requestStream, responseStream }] of Object.entries(
    codec.service(name),
  )) {
    def[method] = {
      path: `/${name}/${method}`,
      requestStream: !!requestStream,
      responseStream: !!responseStream,
      requestSerialize: (value) => codec.encode(request, value),
      requestDeserialize: (bytes) => codec.decode(request, bytes),
      responseSerialize: (value) => codec.encode(response, value),
      responseDeserialize: (bytes) => codec.decode(response, bytes),
      originalName: rpcMethodName(method),
    };
  }
  return def;
}

/** The services from the codec's descriptor of the vendored files. */
export function servicesOf(descriptor: ProtocolDescriptor): Services {
  const codec = new Codec(descriptor);
  return {
    provider: serviceDefinition(codec, "tfplugin6.Provider"),
    controller: serviceDefinition(codec, "plugin.GRPCController"),
    health: serviceDefinition(codec, "grpc.health.v1.Health"),
  };
}

/** The build's descriptor when it is there, else the .proto files compiled now. */
export async function loadServices(): Promise<Services> {
  let descriptor: ProtocolDescriptor;
  try {
    descriptor = JSON.parse(readFileSync(DESCRIPTOR, "utf8")) as ProtocolDescriptor;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const { protocolDescriptor } = await import("./protocol-source.ts");
    descriptor = protocolDescriptor();
  }
  return servicesOf(descriptor);
}
