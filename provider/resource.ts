/**
 * The contract every resource implements, independent of the Pulumi mechanism that drives it
 * (the dynamic-provider adapter in dynamic.ts today; a native plugin can reuse the same modules).
 */
import type { CwsClient } from "../client/index.ts";

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

export type ChangeKind = "update" | "redeploy" | "replace";

export interface DiffResult {
  changes: boolean;
  /** Properties whose change forces a replacement. */
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Every changed property and how it is applied. */
  detail: Record<string, ChangeKind>;
}

export interface Context {
  client: CwsClient;
  /** Progress lines for the user (never secrets). */
  log(message: string): void;
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
  check(olds: Props, news: Props): CheckResult;
  diff(id: string, olds: Props, news: Props): DiffResult;
  create(ctx: Context, inputs: Props): Promise<{ id: string; outputs: Props }>;
  read(ctx: Context, id: string, olds: Props): Promise<ReadResult | undefined>;
  update(ctx: Context, id: string, olds: Props, news: Props): Promise<Props>;
  delete(ctx: Context, id: string, olds: Props): Promise<void>;
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
