/**
 * State versions and their migrations: the one place where properties written by an earlier
 * version of the provider are brought to today's shape.
 *
 * Every inputs and outputs bag the provider hands to the engine carries `__stateVersion`, the
 * version of the shape that wrote it. Old state enters through the front ends (check, diff, read,
 * update, delete, import); each passes it through `fromState` before a resource module sees it, so
 * modules only ever handle the current shape. Properties without the key were written by 0.1.0,
 * the first release, whose shape is version 1.
 *
 * A migration is a plain function from version n to n+1 of one resource type. It works on the
 * values as the front end received them: in the native plugin a secret is still wrapped, so a
 * renamed secret property moves with its wrapper and stays secret.
 *
 * To change the shape of a resource's state: raise STATE_VERSION, add the migration from the
 * previous version to MIGRATIONS, and record the new release's state (npm run
 * record-upgrade-fixtures) so the upgrade test replays both.
 */
import type { Props } from "./types.ts";

/** The shape of state this version writes. */
export const STATE_VERSION = 1;

/** The version of state that carries no version key (written by 0.1.0). */
export const UNVERSIONED = 1;

/** The key, in inputs and outputs, that says which state version wrote them. */
export const STATE_VERSION_KEY = "__stateVersion";

export interface Migration {
  /** Resource type name ("Workload", "Volume", ...). */
  type: string;
  /** The version it reads; it writes version `from + 1`. */
  from: number;
  migrate(props: Props): Props;
}

/** Every migration, oldest first. Empty while every released shape is version 1. */
export const MIGRATIONS: Migration[] = [];

/** The state version a bag of properties says it was written by. */
export function versionOf(props: Props): number {
  const v = props[STATE_VERSION_KEY];
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : UNVERSIONED;
}

/**
 * Old state as the current shape, without the version key. Refuses state written by a newer
 * provider: downgrading could lose what it stored.
 */
export function fromState(type: string, props: Props, migrations: readonly Migration[] = MIGRATIONS): Props {
  const version = versionOf(props);
  if (version > STATE_VERSION) {
    throw new Error(
      `cws ${type}: this state was written by a newer provider (state version ${version}; this provider reads up to ${STATE_VERSION}). Upgrade the provider; do not downgrade it.`,
    );
  }
  const { [STATE_VERSION_KEY]: _v, ...rest } = props;
  let out: Props = rest;
  for (let v = version; v < STATE_VERSION; v++) {
    const step = migrations.find((m) => m.type === type && m.from === v);
    if (step) out = step.migrate(out);
  }
  return out;
}

/** Properties as state of this version. */
export function toState(props: Props): Props {
  return { ...props, [STATE_VERSION_KEY]: STATE_VERSION };
}
