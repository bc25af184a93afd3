/**
 * How long an operation may take: the program's customTimeouts when the front end passes them,
 * else the resource's `readyTimeoutSec` input (default 600 s). Waits and retries stop there.
 */
import { unreachableStatus } from "../../client/reach.ts";
import { withRetryBudget } from "../../client/retry.ts";
import { durationMs } from "../../sdk/duration.ts";
import { sayStatus, type CheckFailure, type Context, type Props, type ResourceModule } from "./types.ts";
import { UNKNOWN } from "./unknowns.ts";

export const DEFAULT_READY_TIMEOUT_SEC = 600;

/** The operation's timeout in ms: customTimeouts, else `readyTimeoutSec`, else 600 s. */
export function readyTimeoutMs(ctx: Pick<Context, "timeoutMs">, inputs: Props): number {
  if (ctx.timeoutMs !== undefined && ctx.timeoutMs > 0) return ctx.timeoutMs;
  return ((inputs.readyTimeoutSec as number | undefined) ?? DEFAULT_READY_TIMEOUT_SEC) * 1000;
}

/** Examples of a duration, for the errors of every duration input: the form customTimeouts take (Go's syntax). */
export const DURATION_EXAMPLES = '"30s", "10m" or "1h30m"';

/** Why a duration input (`waitForCapacity`) is not one; nothing while it is unset or unknown. */
export function durationFailure(property: string, value: unknown): CheckFailure | undefined {
  if (value === undefined || value === UNKNOWN) return undefined;
  if (typeof value === "string" && durationMs(value) !== undefined) return undefined;
  return {
    property,
    reason: `${property} must be a duration such as ${DURATION_EXAMPLES} (got ${JSON.stringify(value)})`,
  };
}

/**
 * How long a create may wait for capacity the service has none of now: the `waitForCapacity`
 * duration, never past the operation's own timeout; undefined when it is unset.
 */
export function capacityWaitMs(ctx: Pick<Context, "timeoutMs">, inputs: Props): number | undefined {
  const wait = typeof inputs.waitForCapacity === "string" ? durationMs(inputs.waitForCapacity) : undefined;
  return wait === undefined ? undefined : Math.min(wait, readyTimeoutMs(ctx, inputs));
}

/** Options for a waiter under the operation's timeout and cancellation. */
export function waitOptions(ctx: Context, inputs: Props): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: readyTimeoutMs(ctx, inputs), signal: ctx.signal };
}

/**
 * The module with every operation run under a retry budget ending at its deadline, so that
 * rate limiting and unavailability are waited out within the user's timeout; while the service
 * cannot be reached at all, the status line says so and for how much longer it is tried.
 */
export function withBudget(m: ResourceModule): ResourceModule {
  const run = <T>(ctx: Context, inputs: Props, fn: () => Promise<T>) =>
    withRetryBudget(
      {
        deadline: Date.now() + readyTimeoutMs(ctx, inputs),
        signal: ctx.signal,
        onRetry: (info) => info.unreachable && sayStatus(ctx, unreachableStatus(info.unreachable)),
      },
      fn,
    );
  return {
    ...m,
    create: (ctx, inputs) => run(ctx, inputs, () => m.create(ctx, inputs)),
    read: (ctx, id, olds) => run(ctx, olds, () => m.read(ctx, id, olds)),
    update: (ctx, id, olds, news) => run(ctx, news, () => m.update(ctx, id, olds, news)),
    delete: (ctx, id, olds) => run(ctx, olds, () => m.delete(ctx, id, olds)),
  };
}
