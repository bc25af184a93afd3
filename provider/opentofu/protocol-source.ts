/**
 * The vendored .proto files (vendor/: tfplugin6 as published by OpenTofu, go-plugin's controller
 * and gRPC's health) parsed into protobufjs's JSON descriptor, field names kept as written. The
 * build writes it beside the compiled code (vendor/protocol.json); the provider run from the
 * sources parses the files at start.
 */
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

/** The folder of the .proto files. */
export const PROTO_DIR = fileURLToPath(new URL("./vendor/", import.meta.url));
/** The files parsed; their imports are found in the same folder (google/protobuf/* are protobufjs's own). */
export const PROTO_FILES = ["tfplugin6.proto", "go-plugin.proto", "health.proto"];

export function protocolDescriptor(dir: string = PROTO_DIR): protobuf.INamespace {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(dir, target));
  root.loadSync(PROTO_FILES, { keepCase: true });
  return root.toJSON();
}
