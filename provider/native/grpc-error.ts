/**
 * A failed call as the engine takes it: a gRPC error with the message; an object that exists but
 * did not reach its state goes back as partial state (ErrorResourceInitFailed), kept in the stack.
 */
import anyPb from "google-protobuf/google/protobuf/any_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import statusPb from "@pulumi/pulumi/proto/status_pb.js";
import { toState } from "../core/state.ts";
import { PartialStateError } from "../core/types.ts";
import { Status, StatusError } from "../frontend/grpc-server.ts";
import { encode } from "./values.ts";

/** A gRPC error; an object that exists but did not reach its state goes back as partial state. */
export function grpcError(e: unknown, secrets: Iterable<string>): StatusError {
  const message = e instanceof Error ? e.message : String(e);
  if (!(e instanceof PartialStateError)) return new StatusError(Status.UNKNOWN, message);
  const detail = new providerPb.ErrorResourceInitFailed();
  detail.setId(e.id);
  detail.setProperties(encode(toState(e.properties), secrets));
  detail.setReasonsList(e.reasons);
  const any = new anyPb.Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusPb.Status();
  status.setCode(Status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  return new StatusError(Status.UNKNOWN, message, status.serializeBinary());
}
