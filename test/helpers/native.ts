/** End-to-end helpers for the native plugin: stacks whose engine finds `pulumi-resource-cws` on PATH. */
import type { ConfigMap, EngineEvent, PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { delimiter, dirname, join } from "node:path";
import { offlineStack, type OfflineStack } from "../../scripts/offline-stack.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { pulumiRoot } from "../../scripts/toolchain/pulumi.ts";
import type { TestServer as Server } from "./server.ts";
import { stackConfig } from "./stacks.ts";

/** PATH with this Node, the plugin launcher (bin/) and the Pulumi CLI's bin/. */
export const NATIVE_ENV: Record<string, string> = {
  PATH: [
    dirname(process.execPath),
    join(REPO_ROOT, "bin"),
    join(pulumiRoot(), "bin"),
    process.env.PATH ?? "",
  ].join(delimiter),
};

export function nativeStack(
  server: Server,
  projectName: string,
  program: PulumiFn,
  config: ConfigMap = {},
): Promise<OfflineStack> {
  return offlineStack({
    projectName,
    program,
    config: { ...stackConfig(server), ...config },
    env: NATIVE_ENV,
  });
}

/** Collects the engine events of one operation. */
export function events() {
  const all: EngineEvent[] = [];
  return {
    onEvent: (e: EngineEvent) => void all.push(e),
    /** Diagnostics on a resource's own line (the URN ends with `::name`). */
    diagnostics(name: string): string[] {
      return all
        .map((e) => e.diagnosticEvent)
        .filter((d) => d?.urn?.endsWith(`::${name}`))
        .map((d) => d!.message.trim());
    },
    /** The detailed diff the engine reported for a resource, property → kind. */
    detailedDiff(name: string): Record<string, string> {
      for (const e of all) {
        const m = e.resourcePreEvent?.metadata;
        if (m?.urn.endsWith(`::${name}`) && m.detailedDiff)
          return Object.fromEntries(Object.entries(m.detailedDiff).map(([k, v]) => [k, v.diffKind]));
      }
      return {};
    },
  };
}
