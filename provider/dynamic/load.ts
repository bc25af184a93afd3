/**
 * Loading code in the engine's provider process, which starts afresh for every operation: Node's
 * compile cache is on, and written as soon as a module is loaded (the engine ends its plugins
 * with a signal, which skips Node's exit hooks). The cache holds compiled code only, never
 * anything read from the service.
 */
import * as nodeModule from "node:module";
import { extname } from "node:path";

const cache = nodeModule as Partial<{ enableCompileCache(): unknown; flushCompileCache(): void }>;

/**
 * `require(specifier)` relative to the module at `from` (its import.meta.url), through the
 * compile cache. `specifier` has no extension: it takes that of `from`, so the same call loads
 * the TypeScript sources and the compiled package (dist/).
 */
export function requireCached<T>(from: string, specifier: string): T {
  cache.enableCompileCache?.();
  const loaded = nodeModule.createRequire(from)(`${specifier}${extname(new URL(from).pathname)}`) as T;
  cache.flushCompileCache?.();
  return loaded;
}
