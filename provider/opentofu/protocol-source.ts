/**
 * The vendored .proto files (vendor/: tfplugin6 as published by OpenTofu, go-plugin's controller
 * and gRPC's health) compiled into the descriptor the provider's codec reads (proto-codec.ts):
 * every message's fields with their types resolved, every enum's values, every service's methods.
 * The build writes it beside the compiled code (vendor/protocol.json); the provider run from the
 * sources compiles the files at start. protobuf.js parses the files (field names kept as written)
 * and resolves the names.
 */
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import type { FieldDescriptor, ProtocolDescriptor } from "./proto-codec.ts";

/** The folder of the .proto files. */
export const PROTO_DIR = fileURLToPath(new URL("./vendor/", import.meta.url));
/** The files compiled; their imports are found in the same folder (google/protobuf/* are protobuf.js's own). */
export const PROTO_FILES = ["tfplugin6.proto", "go-plugin.proto", "health.proto"];

const fullName = (o: protobuf.ReflectionObject) => o.fullName.replace(/^\./, "");

function field(f: protobuf.Field): FieldDescriptor {
  f.resolve();
  const kind = f.resolvedType instanceof protobuf.Enum ? "enum" : f.resolvedType ? "message" : "scalar";
  const out: FieldDescriptor = {
    name: f.name,
    id: f.id,
    kind,
    type: f.resolvedType ? fullName(f.resolvedType) : f.type,
  };
  if (f instanceof protobuf.MapField) out.keyType = f.keyType;
  if (f.repeated) out.repeated = true;
  if (f.repeated && f.packed && kind !== "message") out.packed = true;
  if (f.partOf) out.oneof = f.partOf.name;
  return out;
}

/** The root namespace of the files, parsed and resolved. */
export function protocolRoot(dir: string = PROTO_DIR): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(dir, target));
  root.loadSync(PROTO_FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

export function protocolDescriptor(dir: string = PROTO_DIR): ProtocolDescriptor {
  const d: ProtocolDescriptor = { messages: {}, enums: {}, services: {} };
  const visit = (ns: protobuf.NamespaceBase) => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Type) d.messages[fullName(o)] = o.fieldsArray.map(field);
      else if (o instanceof protobuf.Enum) d.enums[fullName(o)] = { ...o.values };
      else if (o instanceof protobuf.Service) {
        d.services[fullName(o)] = Object.fromEntries(
          o.methodsArray.map((m) => {
            m.resolve();
            return [
              m.name,
              {
                request: fullName(m.resolvedRequestType!),
                response: fullName(m.resolvedResponseType!),
                ...(m.requestStream ? { requestStream: true } : {}),
                ...(m.responseStream ? { responseStream: true } : {}),
              },
            ];
          }),
        );
      }
      if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) visit(o);
    }
  };
  visit(protocolRoot(dir));
  return d;
}
