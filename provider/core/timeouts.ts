/**
 * How long an operation may take: the program's customTimeouts when the front end passes them,
 * else the resource's `readyTimeoutSec` input (default 600 s). Waits and retries stop there.
 */
import { withRetryBudget } from "../../client/retry.ts";
import type { Context, Props, ResourceModule } from "./types.ts";

export const DEFAULT_READY_TIMEOUT_SEC = 600;

/** The operation's timeout in ms: customTimeouts, else `readyTimeoutSec`, else 600 s. */
export function readyTimeoutMs(ctx: Pick<Context, "timeoutMs">, inputs: Props): number {
  if (ctx.timeoutMs !== undefined && ctx.timeoutMs > 0) return ctx.timeoutMs;
  return ((inputs.readyTimeoutSec as number | undefined) ?? DEFAULT_READY_TIMEOUT_SEC) * 1000;
}

/** Options for a waiter under the operation's timeout and cancellation. */
export function waitOptions(ctx: Context, inputs: Props): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: readyTimeoutMs(ctx, inputs), signal: ctx.signal };
}

/**
 * The module with every operation run under a retry budget ending at its deadline, so that
 * rate limiting and unavailability are waited out within the user's timeout.
 */
export function withBudget(m: ResourceModule): ResourceModule {
  const run = <T>(ctx: Context, inputs: Props, fn: () => Promise<T>) =>
    withRetryBudget({ deadline: Date.now() + readyTimeoutMs(ctx, inputs), signal: ctx.signal }, fn);
  return {
    ...m,
    create: (ctx, inputs) => run(ctx, inputs, () => m.create(ctx, inputs)),
    read: (ctx, id, olds) => run(ctx, olds, () => m.read(ctx, id, olds)),
    update: (ctx, id, olds, news) => run(ctx, news, () => m.update(ctx, id, olds, news)),
    delete: (ctx, id, olds) => run(ctx, olds, () => m.delete(ctx, id, olds)),
  };
}
