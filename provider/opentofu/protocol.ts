/**
 * The protocol the provider serves, as grpc-js service definitions: tfplugin6's Provider,
 * go-plugin's GRPCController and gRPC's Health, from the .proto files vendored in vendor/.
 * Messages look as the adapter expects them: field names as in the .proto files, enums by name,
 * 64-bit integers as numbers, defaults filled in, oneofs named.
 *
 * The build (scripts/build.ts) parses the .proto files once into protobufjs's JSON descriptor
 * beside the compiled code (vendor/protocol.json), which the light build of protobufjs reads
 * with no parser: nothing is parsed when the provider starts. Run from the sources, where that
 * file is not, the .proto files are parsed at start (protocol-source.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import protobuf from "protobufjs/light.js";

/** The descriptor the build writes, relative to this module (and to the bundle beside it). */
const DESCRIPTOR = new URL("./vendor/protocol.json", import.meta.url);

/** How decoded messages look to the adapter (protobufjs's toObject options). */
const AS_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true, oneofs: true };

export interface Services {
  provider: grpc.ServiceDefinition;
  controller: grpc.ServiceDefinition;
  health: grpc.ServiceDefinition;
}

/** `GetProviderSchema` → `getProviderSchema`. */
const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);

/** One service's definition; message types are resolved on their first call. */
function serviceDefinition(root: protobuf.Root, name: string): grpc.ServiceDefinition {
  const service = root.lookupService(name);
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    def[method.name] = {
      path: `/${name}/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: (value) => req.encode(req.fromObject(value as object)).finish() as Buffer,
      requestDeserialize: (bytes) => req.toObject(req.decode(bytes), AS_OBJECT),
      responseSerialize: (value) => res.encode(res.fromObject(value as object)).finish() as Buffer,
      responseDeserialize: (bytes) => res.toObject(res.decode(bytes), AS_OBJECT),
      originalName: lowerFirst(method.name),
    };
  }
  return def;
}

/** The services from a protobufjs JSON descriptor of the vendored files. */
export function servicesOf(descriptor: protobuf.INamespace): Services {
  const root = protobuf.Root.fromJSON(descriptor);
  return {
    provider: serviceDefinition(root, "tfplugin6.Provider"),
    controller: serviceDefinition(root, "plugin.GRPCController"),
    health: serviceDefinition(root, "grpc.health.v1.Health"),
  };
}

/** The build's descriptor when it is there, else the .proto files parsed now. */
export async function loadServices(): Promise<Services> {
  let descriptor: protobuf.INamespace;
  try {
    descriptor = JSON.parse(readFileSync(DESCRIPTOR, "utf8")) as protobuf.INamespace;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const { protocolDescriptor } = await import("./protocol-source.ts");
    descriptor = protocolDescriptor();
  }
  return servicesOf(descriptor);
}
