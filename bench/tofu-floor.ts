/**
 * The floor of the OpenTofu and Terraform benches: bench/tofu-floor/, the smallest provider
 * written the usual way (Go, terraform-plugin-framework; two no-op resources: `floor_item` with an
 * `id` and a `name`, and `floor_volume` with `cws_volume`'s attributes, timeouts block and
 * identity), built with `go build` from the Go module proxy into the toolchain's cache, keyed by a
 * hash of its module's files (go.mod, go.sum, the Go sources) as tools/gen-sdk is.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCachedBuild, toolchainCache } from "../scripts/toolchain/go-build.ts";
import { logTo } from "../scripts/toolchain/log.ts";

const MODULE_DIR = fileURLToPath(new URL("./tofu-floor/", import.meta.url));
/** The provider's source address: a filesystem mirror holds it as cws/floor. */
export const FLOOR_SOURCE = "cws/floor";

function moduleKey(): string {
  const hash = createHash("sha256");
  for (const name of readdirSync(MODULE_DIR).sort()) {
    if (!/\.go$|^go\.(mod|sum)$/.test(name)) continue;
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(join(MODULE_DIR, name)))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 12);
}

/** The floor provider's binary, built once (about a minute) and then taken from the cache. */
export function ensureFloorProvider(): Promise<string> {
  const key = moduleKey();
  return ensureCachedBuild(
    {
      what: "the floor provider (bench/tofu-floor)",
      version: key,
      pkg: ".",
      moduleDir: MODULE_DIR,
      versionInPath: true,
    },
    join(toolchainCache(), `tofu-floor-${key}`, "terraform-provider-floor"),
    logTo("tofu-floor"),
  );
}
