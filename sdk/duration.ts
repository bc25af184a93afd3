/**
 * Durations in Go's syntax ("90s", "1h30m", "250ms"), as Pulumi's `customTimeouts` and
 * OpenTofu's `timeouts` blocks are written. Dependency-free: the SDK classes (which load nothing
 * but @pulumi/pulumi) and the OpenTofu front end both read timeouts with it.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/** Milliseconds of a duration such as "1h30m"; undefined when unset or not one. */
export function durationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== at) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return ms;
}
