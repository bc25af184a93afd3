/** How the toolchain steps report progress: one line at a time on stderr, tagged with the tool's name. */

/** Where a step's progress lines go. */
export type Log = (line: string) => void;

/** A log that prints `[tag] line` on stderr. */
export function logTo(tag: string): Log {
  return (line) => console.error(`[${tag}] ${line}`);
}

/** The whole seconds since `since` (a Date.now() value), as `12s`. */
export function seconds(since: number): string {
  return `${Math.round((Date.now() - since) / 1000)}s`;
}
