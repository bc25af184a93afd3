/**
 * The calls whose answers depend on the package alone (its schema and the protocol), never on the
 * configuration, the service or the call: the build asks the adapter for each once and writes the
 * encoded answer beside the compiled code (vendor/answers/<RPC>.pb). The provider then answers
 * them from those bytes, without loading the adapter and the resource modules: the process OpenTofu
 * starts to read the provider's schema loads neither. Run from the sources, where the files are not,
 * the adapter answers them.
 */
import { readFileSync } from "node:fs";
import { rpcMethodName } from "../frontend/grpc-server.ts";
import type { TofuProvider } from "./adapter.ts";
import type { Services } from "./protocol.ts";

/** The RPCs answered the same whatever is asked. */
export const STATIC_RPCS = [
  "GetMetadata",
  "GetProviderSchema",
  "GetResourceIdentitySchemas",
  "GetFunctions",
] as const;

/** Where the build writes an RPC's answer, relative to this module (and to the bundle beside it). */
export const answerFile = (rpc: string, base: URL = new URL("./", import.meta.url)): URL =>
  new URL(`vendor/answers/${rpc}.pb`, base);

/** Each static RPC's answer from `provider`, encoded (what the build writes). */
export function encodeStaticAnswers(provider: TofuProvider, services: Services): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const rpc of STATIC_RPCS) {
    const method = (provider as unknown as Record<string, unknown>)[rpcMethodName(rpc)];
    const def = services.provider[rpc];
    if (typeof method !== "function" || !def) continue;
    out[rpc] = Buffer.from(def.responseSerialize((method as () => unknown).call(provider)));
  }
  return out;
}

/** The build's answer to `rpc`, or undefined when there is none (run from the sources). */
export function staticAnswer(rpc: string): Buffer | undefined {
  if (!(STATIC_RPCS as readonly string[]).includes(rpc)) return undefined;
  try {
    return readFileSync(answerFile(rpc));
  } catch {
    return undefined;
  }
}
