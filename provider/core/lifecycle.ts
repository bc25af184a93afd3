/**
 * The one lifecycle every resource runs: a definition (what each property is and how a change of
 * it is applied) and a controller (the calls to the API) make a ResourceModule. Check, diff,
 * create at most once or adopt, waits under the operation's timeout, partial state, and the
 * mapping of what the service has back to inputs and outputs are all here, once.
 */
import { diffFields, keepProgramShape, type FieldRule } from "./diff.ts";
import { autoNamedOf, isAdoptable, renamesOf, requiredOf, rulesOf, type Definition } from "./definition.ts";
import { chooseName } from "./naming.ts";
import { withBudget } from "./timeouts.ts";
import { redactOutputs } from "./wait.ts";
import {
  MadeButFailedError,
  PartialStateError,
  type ChangeKind,
  type CheckFailure,
  type Context,
  type DiffResult,
  type Props,
  type ResourceModule,
} from "./types.ts";
import { compact, messageOf, onePerProperty, pick, unlessGone } from "./values.ts";
import { valueAt } from "./unknowns.ts";
import { propsFrom } from "./wire.ts";

export interface Controller<R extends object> {
  /** The live object, or undefined when the service no longer has it (404, soft-deleted). */
  get(ctx: Context, id: string): Promise<R | undefined>;
  /** The inputs that reproduce what the service has; `olds` gives what it never returns. */
  inputsOf(record: R, olds: Props): Props;
  /** Why `record` cannot be adopted as this resource, if it cannot (a SANDBOX is no Workload). */
  refuseAdoption?(record: R): string | undefined;
  /**
   * Creates the object at most once (createOnce) and returns its uid. A create that made the
   * object and then failed throws MadeButFailedError: the object is kept as partial state.
   */
  create(ctx: Context, inputs: Props): Promise<string>;
  /** Sends the changes in `detail` (the diff of `have` and `want`). */
  update(
    ctx: Context,
    id: string,
    have: Props,
    want: Props,
    detail: Record<string, ChangeKind>,
  ): Promise<void>;
  /**
   * Brings the object's lifecycle to what the inputs ask for (deploy, freeze, waits), after
   * create (olds empty) and after every update.
   */
  converge?(ctx: Context, id: string, inputs: Props, olds: Props): Promise<void>;
  /** After create, also bring the service's fields to the program's (a fork copies its parent's). */
  alignAfterCreate?: boolean;
  delete(ctx: Context, id: string): Promise<unknown>;
}

/**
 * Refuses a replacement whose new resource would adopt the object it replaces: create would
 * take the same uid and delete would then remove it, leaving the stack pointing at nothing.
 */
function refuseSelfAdoption(what: string, id: string, news: Props, replaces: string[]): void {
  if (!replaces.length || news.adoptUid !== id) return;
  throw new Error(
    `${what} ${id}: changing ${replaces.join(", ")} replaces it, and the replacement would adopt ${id} (adoptUid), the very object being replaced. ` +
      "Remove adoptUid from the program (the object is already managed by this stack), then run the change again",
  );
}

/** Why an update cannot make a change: the properties only a replace changes, and the rule. */
function replaceOnly(what: string, id: string, d: DiffResult): string {
  const keys = d.replaces.join(", ");
  const why = d.reasons?.length ? ` (${d.reasons.join("; ")})` : "";
  return (
    `cannot update ${what} ${id} in place: ${keys}: changing ${d.replaces.length === 1 ? "it" : "them"} replaces the ${what}${why}, ` +
    "which an update does not do; nothing was changed. Replace it instead: change it in a program (up replaces it), or delete it and create it again"
  );
}

/** Replace-only inputs whose value on the service differs from the program's (write-only ones cannot be read). */
function fixedMismatches(
  rules: Record<string, FieldRule>,
  have: Props,
  want: Props,
  what: string,
  uid: string,
): string | undefined {
  const d = diffFields(rules, have, want);
  const fixed = d.replaces.filter(
    (k) => want[k] !== undefined && !(rules[k]?.writeOnly && have[k] === undefined),
  );
  if (!fixed.length) return undefined;
  return `cannot adopt ${what} ${uid}: ${fixed.map((k) => `${k} is ${JSON.stringify(have[k] ?? null)} on the service but ${JSON.stringify(want[k])} in the program`).join("; ")}. These fields can only change by replacement; make the program match or drop adoptUid`;
}

/** The ResourceModule of a definition and its controller, every call under its retry budget. */
export function resource<R extends object>(def: Definition, ctl: Controller<R>): ResourceModule {
  const rules = rulesOf(def);
  const renames = renamesOf(def);
  const outputNames = Object.keys(def.outputs);
  const required = requiredOf(def);
  const autoNamed = autoNamedOf(def);
  const { what } = def;

  // A secret the service never returns (a password), missing from an existing object's last
  // inputs (it was imported) and from the new ones: the service keeps its own, nothing to check.
  const secretPaths = new Set(
    Object.entries(rules).flatMap(([k, r]) => (r.writeOnly ?? []).map((f) => `${k}.${f}`)),
  );
  const unseenSecret = (property: string, olds: Props, news: Props) =>
    secretPaths.has(property) &&
    Object.keys(olds).length > 0 &&
    valueAt(olds, property) === undefined &&
    valueAt(news, property) === undefined;

  const outputsOf = (r: R, inputs: Props) => compact({ ...inputs, ...propsFrom(r, outputNames, renames) });

  /** The rules for an object whose last outputs are `olds`: redeploys are updates while it is not deployed. */
  const rulesFor = (olds: Props) =>
    def.redeploys === undefined || def.redeploys(olds)
      ? rules
      : Object.fromEntries(
          Object.entries(rules).map(([k, r]) => [
            k,
            r.kind === "redeploy" ? { ...r, kind: "update" as const } : r,
          ]),
        );

  /** Outputs from the service's current record, else the inputs (when even that read fails). */
  async function current(ctx: Context, id: string, inputs: Props): Promise<Props> {
    const r = await ctl.get(ctx, id).catch(() => undefined);
    return r ? redactOutputs(ctx, inputs, outputsOf(r, inputs)) : { ...inputs, uid: id };
  }

  /** Runs `work` on an object that exists; a failure keeps it in state (partial state) with the reason. */
  async function settle(ctx: Context, id: string, inputs: Props, failure: string, work: () => Promise<void>) {
    try {
      await work();
    } catch (e) {
      throw new PartialStateError(id, await current(ctx, id, inputs), `${failure}: ${messageOf(e)}`);
    }
    return current(ctx, id, inputs);
  }

  /** Brings the fields the program sets to its values where the service's differ, then converges. */
  async function align(ctx: Context, id: string, inputs: Props): Promise<void> {
    const record = await ctl.get(ctx, id);
    if (!record) throw new Error(`${what} ${id} is gone`);
    const have = pick(ctl.inputsOf(record, inputs), Object.keys(inputs));
    const detail = diffFields(rulesFor(have), have, inputs).detail;
    const changed = Object.fromEntries(Object.entries(detail).filter(([, k]) => k !== "replace"));
    if (Object.keys(changed).length) {
      ctx.log(`${what} ${id}: updating ${Object.keys(changed).join(", ")} to the program's values`);
      await ctl.update(ctx, id, have, inputs, changed);
      await ctl.converge?.(ctx, id, inputs, have);
    }
  }

  /** The object `adoptUid` names, checked: live, of this kind, replace-only fields as in the program. */
  async function adoptable(ctx: Context, uid: string, inputs: Props): Promise<string> {
    const record = await ctl.get(ctx, uid);
    const refused = record
      ? ctl.refuseAdoption?.(record)
      : `cannot adopt ${what} ${uid}: the service has no live ${what} with that uid`;
    if (refused) throw new Error(refused);
    const mismatch = fixedMismatches(rules, ctl.inputsOf(record!, inputs), inputs, what, uid);
    if (mismatch) throw new Error(mismatch);
    return uid;
  }

  /**
   * A change of the placement inputs is applied in place while the object's placement stays a
   * candidate, and replaces it, saying why, when it does not.
   */
  function placeChanges(d: DiffResult, olds: Props, news: Props): void {
    const changed = def.placement?.inputs.filter((k) => k in d.detail) ?? [];
    if (!changed.length) return;
    const why = def.placement!.moves(olds, news);
    if (why === undefined) return;
    for (const k of changed) d.detail[k] = why ? "replace" : "update";
    if (why) d.reasons = [...(d.reasons ?? []), why];
    d.replaces = Object.keys(d.detail).filter((k) => d.detail[k] === "replace");
  }

  function diff(id: string, olds: Props, news: Props): DiffResult {
    const d = diffFields(rulesFor(olds), olds, news);
    placeChanges(d, olds, news);
    if (isAdoptable(def)) refuseSelfAdoption(what, id, news, d.replaces);
    // Broken is drift: an object the service reports broken (refresh read it so) is repaired by
    // a redeploy, which preview shows as a change of its status.
    if (def.broken?.includes(olds.status as string) && news.deploy !== false) {
      d.detail.status = "redeploy";
      d.changes = true;
    }
    // Undeployed is unfinished work: an object whose deploy was refused is deployed by an update.
    if (def.undeployed?.includes(olds.status as string) && news.deploy !== false && !d.replaces.length) {
      d.detail.status = "update";
      d.changes = true;
    }
    d.deleteBeforeReplace = d.replaces.length > 0 && (def.deleteBeforeReplace?.(olds, news) ?? false);
    return d;
  }

  return withBudget({
    name: def.name,

    check(olds, given, naming) {
      // The name first (an auto-name when unset): the rules below check the name that is sent.
      const news = { ...given };
      const failures: CheckFailure[] = [];
      const leftToService = new Set<string>();
      for (const [k, rule] of autoNamed) {
        const choice = chooseName(k, rule, what, olds, news, naming);
        if (choice.failure) failures.push(choice.failure);
        else if (choice.name !== undefined) news[k] = choice.name;
        else leftToService.add(k); // adoption without a name: the object keeps its own
      }
      for (const f of def.validate?.(olds, news) ?? []) if (!leftToService.has(f.property)) failures.push(f);
      for (const k of required)
        if (news[k] === undefined) failures.push({ property: k, reason: `${k} is required` });
      return {
        inputs: news,
        failures: onePerProperty(failures.filter((f) => !unseenSecret(f.property, olds, news))),
      };
    },

    diff,

    async create(ctx, inputs) {
      const adoptUid = inputs.adoptUid as string | undefined;
      let id: string;
      let failure: MadeButFailedError | undefined;
      try {
        id = adoptUid ? await adoptable(ctx, adoptUid, inputs) : await ctl.create(ctx, inputs);
      } catch (e) {
        if (!(e instanceof MadeButFailedError)) throw e;
        [id, failure] = [e.id, e];
      }
      const outputs = await settle(
        ctx,
        id,
        inputs,
        `${what} ${id} ${def.notReady ?? "was created but did not come up"}`,
        async () => {
          if (failure) throw failure.cause;
          await ctl.converge?.(ctx, id, inputs, {});
          if (adoptUid || ctl.alignAfterCreate) await align(ctx, id, inputs);
        },
      );
      return { id, outputs };
    },

    async read(ctx, id, olds) {
      const record = await ctl.get(ctx, id);
      if (!record) return undefined;
      const inputs = keepProgramShape(rules, olds, ctl.inputsOf(record, olds));
      return { id, inputs, outputs: redactOutputs(ctx, inputs, outputsOf(record, inputs)) };
    },

    async update(ctx, id, olds, news) {
      // Only a replace makes these changes: an engine replaces instead of updating, but a direct
      // update (`pulumi do ... patch --stateless`) is refused before anything changes.
      const planned = diff(id, olds, news);
      if (planned.replaces.length) throw new Error(replaceOnly(what, id, planned));
      return settle(ctx, id, news, `updating ${what} ${id} failed`, async () => {
        const detail = planned.detail;
        if (Object.keys(detail).length) await ctl.update(ctx, id, olds, news, detail);
        await ctl.converge?.(ctx, id, news, olds);
      });
    },

    async delete(ctx, id) {
      await unlessGone(() => ctl.delete(ctx, id));
    },
  });
}
