/**
 * The contract every resource implements, independent of the Pulumi mechanism that drives it
 * (the dynamic-provider adapter in dynamic.ts; the native plugin in native/ uses the same modules).
 *
 * Semantics every module keeps (front ends rely on them):
 * - `olds` in diff and read are the resource's previous outputs, which hold its inputs. An input
 *   present there and absent from `news` was managed and is now removed: diff reports it as a
 *   change to the empty value and update clears it on the service. An input absent from both
 *   was never set and is left to the service; read does not return it.
 * - read with `olds` lacking `name` is a lookup (`get`, import): it returns every property.
 * - `detail` kinds are exact: `redeploy` only where the service redeploys a deployed workload.
 * - create, read, update and delete run their requests under a retry budget ending at the
 *   operation's deadline (`Context.timeoutMs`, else the resource's `readyTimeoutSec`, default
 *   600 s): 429/503 bursts are waited out until then. Waits stop when `Context.signal` aborts.
 */
import type { CwsClient } from "../../client/index.ts";

export type Props = Record<string, unknown>;

export interface CheckFailure {
  /** Pulumi property path, camelCase ("vmConfig.password", "ports[0].port"). */
  property: string;
  reason: string;
}

export interface CheckResult {
  inputs: Props;
  failures: CheckFailure[];
}

/**
 * What a Pulumi front end knows for naming a resource whose program leaves `name` unset
 * (naming.ts).
 */
export interface Autonaming {
  /** The resource's logical name (the last part of its URN). */
  logicalName: string;
  /** Random bytes the engine gave for this resource; fresh ones are drawn when absent. */
  seed?: Uint8Array;
  /** The stack's `pulumi:autonaming` as the engine sends it; absent: the provider's default. */
  engine?: { mode: "propose" | "enforce" | "disable"; proposedName: string };
}

export type ChangeKind = "update" | "redeploy" | "replace";

export interface DiffResult {
  changes: boolean;
  /** Properties whose change forces a replacement. */
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Every changed property and how it is applied. */
  detail: Record<string, ChangeKind>;
  /**
   * Why, in words, where the properties alone do not say it (a replacement because the object's
   * placement is no longer among its candidates): said on the resource's line at preview and plan.
   */
  reasons?: string[];
}

export interface Context {
  client: CwsClient;
  /** Progress lines for the user (never secrets). */
  log(message: string): void;
  /**
   * What a long wait is doing now (never secrets): the engine's status line of the resource in
   * Pulumi (a message that is replaced by the next and not kept), a log line in OpenTofu. Unset:
   * said through `log`.
   */
  status?(message: string): void;
  /**
   * What the user should read after the run (never secrets), such as the fallback a create took and
   * why: on the resource's line in Pulumi, a warning of the apply in OpenTofu. Unset: said through
   * `log`.
   */
  notice?(message: string): void;
  /**
   * The program's customTimeouts for this operation, in ms. When set it replaces the
   * `readyTimeoutSec` default for waits and bounds retry waiting. The native plugin has it from
   * the engine; the dynamic front end from the resource class (`__timeouts`, sdk/resource.ts).
   */
  timeoutMs?: number;
  /** Cancellation: waits and retry sleeps stop promptly when it aborts. */
  signal?: AbortSignal;
  /**
   * The string values the program marked secret, when the front end is told (the native plugin):
   * redacted from every text of the service a wait shows (core/wait.ts). Unset: every env value is.
   */
  secrets?: string[];
}

export interface ReadResult {
  id: string;
  outputs: Props;
  /** The inputs that reproduce what the service has (for refresh and adoption). */
  inputs: Props;
}

export interface ResourceModule {
  /** Type name within the package, e.g. "Workload". */
  name: string;
  /**
   * `naming`: what the Pulumi front ends know to auto-name a resource whose program leaves
   * `name` unset (naming.ts); without it (OpenTofu) `name` is required.
   */
  check(olds: Props, news: Props, naming?: Autonaming): CheckResult;
  diff(id: string, olds: Props, news: Props): DiffResult;
  create(ctx: Context, inputs: Props): Promise<{ id: string; outputs: Props }>;
  read(ctx: Context, id: string, olds: Props): Promise<ReadResult | undefined>;
  update(ctx: Context, id: string, olds: Props, news: Props): Promise<Props>;
  delete(ctx: Context, id: string, olds: Props): Promise<void>;
}

/**
 * A create that made its object (`id`) and then failed (`cause`) before the object reached the
 * wanted state: the lifecycle keeps the object, as a partially created resource (PartialStateError).
 */
export class MadeButFailedError extends Error {
  readonly id: string;
  constructor(id: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "MadeButFailedError";
    this.id = id;
  }
}

/** Says a wait's progress on the status line (Context.status), else as a progress line. */
export function sayStatus(ctx: Context, message: string): void {
  if (ctx.status) ctx.status(message);
  else ctx.log(message);
}

/** Says what the user should read after the run (Context.notice), else as a progress line. */
export function sayNotice(ctx: Context, message: string): void {
  if (ctx.notice) ctx.notice(message);
  else ctx.log(message);
}

/**
 * A resource that exists on the service but did not reach the wanted state. The adapter hands
 * it to the engine as a partially created (or updated) resource: kept in state, not orphaned.
 */
export class PartialStateError extends Error {
  readonly id: string;
  readonly properties: Props;
  readonly reasons: string[];
  constructor(id: string, properties: Props, message: string) {
    super(message);
    this.name = "PartialStateError";
    this.id = id;
    this.properties = properties;
    this.reasons = [message];
  }
}
