/**
 * Stack traces off while a resource registers its properties. @pulumi/pulumi gives each property
 * of a resource four promises and formats a stack trace for each, kept only for its report of
 * promises still pending at exit (which also names the resource and the property): for a
 * resource with 30 properties that is most of the program's CPU per resource. The resource's
 * source position and stack in state are taken by @pulumi/pulumi under their own limit and do
 * not change. A constructor calls quietStacks() before `super(...)` and restoreStacks() after it
 * (in `finally`), and restoreStacks(limit, e) before rethrowing an error `super` threw.
 */

/** Turns stack traces off; returns the limit to restore. */
export function quietStacks(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
}

/**
 * Restores the limit. An error made while stacks were off gets the stack of this call instead,
 * which names the program's line that made the resource.
 */
export function restoreStacks(limit: number, error?: unknown): void {
  Error.stackTraceLimit = limit;
  if (error instanceof Error) Error.captureStackTrace(error, restoreStacks);
}
