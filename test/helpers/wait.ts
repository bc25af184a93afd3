/**
 * The one poller of the tests: calls fn every `intervalMs` (50 ms) until it returns a truthy value,
 * which it returns, or fails naming `what` after `timeoutMs` (10 s). An error fn throws ends it at once.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
