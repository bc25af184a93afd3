/**
 * What `terraform-provider-cws` runs (bin/terraform-provider-cws): Node's compile cache turned on
 * (frontend/compile-cache.ts), then the provider (main.ts). OpenTofu starts the provider several
 * times per command, so every start after the first reads the compiled code from the cache. In
 * the built package both are one bundle (scripts/build.ts): this small file, then the rest (what
 * the start runs, and the chunks its calls load later).
 */
import { enableCompileCache } from "../frontend/compile-cache.ts";

enableCompileCache();
await import("./main.ts");
