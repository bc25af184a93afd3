/**
 * Actions (Terraform 1.14+) over the provider core's action definitions (core/action.ts, declared
 * beside their kinds): their schemas (GetProviderSchema's action_schemas), ValidateActionConfig
 * (the arguments' own rules), PlanAction (those, and what refuses the target, asked of the
 * service: Terraform calls it at plan, for `-invoke` and for a resource's action_trigger alike)
 * and InvokeAction (the run, its progress lines as events as they come, then the completed event
 * with its diagnostics). OpenTofu asks for none of these and ignores the schemas it does not know.
 */
import type { z } from "zod";
import { checkArgs, withDefaults, type ActionContext, type ActionDefinition } from "../core/action.ts";
import type { CheckFailure, Context, Props } from "../core/types.ts";
import { camelToSnake } from "../core/wire.ts";
import type { CallInfo } from "../frontend/grpc-server.ts";
import { errorDiag, hclPath, hclWords, messageOf, type Diagnostic } from "./diagnostics.ts";
import { schemaMessage } from "./schema-message.ts";
import { tfName, type TfAttribute, type TfType } from "./tf-schema.ts";
import { decodeValue, toCore, type DynamicValue } from "./values.ts";

type Req = Record<string, unknown>;

/** Runs `work` with a context of the front end's session (the client, a log, the cancel signal). */
export type RunWithContext = <T>(label: string, work: (ctx: Context) => Promise<T>) => Promise<T>;

interface ZodDef {
  type: string;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
}
const defOf = (t: z.ZodType) => (t as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The value type of an argument, from its zod type (strings, numbers, booleans, lists of them). */
export function tfTypeOf(t: z.ZodType): TfType {
  const d = defOf(t);
  if (d.type === "string" || d.type === "enum") return "string";
  if (d.type === "number" || d.type === "int") return "number";
  if (d.type === "boolean") return "bool";
  if (d.type === "array" && d.element) return ["list", tfTypeOf(d.element)];
  const inner = d.innerType ?? d.in;
  if (inner) return tfTypeOf(inner);
  throw new Error(`an action argument of zod type ${d.type} has no Terraform type`);
}

/** An action as Terraform knows it: its name and its arguments' attributes. */
export interface TfAction {
  typeName: string;
  def: ActionDefinition;
  attributes: TfAttribute[];
}

export function tfAction(def: ActionDefinition): TfAction {
  const attributes = Object.entries(def.inputs).map(([key, p]): TfAttribute => ({
    name: camelToSnake(key),
    key,
    type: tfTypeOf(p.type),
    ...(p.required ? { required: true } : { optional: true }),
    ...(p.secret ? { sensitive: true } : {}),
    description: p.description,
  }));
  return { typeName: tfName(def.name), def, attributes };
}

/** Events of a stream fed as they come: `push` adds one, `end` closes it (with an error, if given). */
class EventQueue<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  push(item: T): void {
    this.#items.push(item);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.#items.length) yield this.#items.shift()!;
      if (this.#ended) return;
      await new Promise<void>((r) => (this.#wake = r));
      this.#wake = undefined;
    }
  }
}

export class TofuActions {
  readonly #actions: Map<string, TfAction>;
  readonly #run: RunWithContext;
  readonly #names: Set<string>;
  /** The objects this process planned a change of (a plan's resources come before its actions). */
  readonly #changing = new Set<string>();

  constructor(definitions: ActionDefinition[], run: RunWithContext) {
    this.#actions = new Map(definitions.map((d) => [tfName(d.name), tfAction(d)]));
    this.#run = run;
    this.#names = new Set(definitions.flatMap((d) => Object.keys(d.inputs)));
  }

  /** GetMetadata's `actions`. */
  metadata(): { type_name: string }[] {
    return [...this.#actions.keys()].map((type_name) => ({ type_name }));
  }

  /** GetProviderSchema's `action_schemas`: each action's arguments as a block. */
  schemas(): Record<string, { schema: unknown }> {
    return Object.fromEntries(
      [...this.#actions.values()].map((a) => [
        a.typeName,
        { schema: schemaMessage(a.attributes, a.def.description, 0, false) },
      ]),
    );
  }

  /** PlanResourceChange planned a change of object `id`: actions on it check its status when they run. */
  noteChange(id: string): void {
    this.#changing.add(id);
  }

  #action(typeName: unknown): TfAction {
    const a = this.#actions.get(String(typeName));
    if (!a) throw new Error(`the cws provider has no action ${String(typeName)}`);
    return a;
  }

  #args(a: TfAction, config: unknown): Props {
    return withDefaults(a.def, toCore(a.attributes, decodeValue(config as DynamicValue)));
  }

  #diagnostics(a: TfAction, failures: CheckFailure[]): Diagnostic[] {
    return failures.map((f) =>
      errorDiag(`${a.typeName} refused: ${hclPath(f.property)}`, hclWords(f.reason, this.#names), f.property),
    );
  }

  validate(req: Req): { diagnostics: Diagnostic[] } {
    const a = this.#action(req.type_name);
    return { diagnostics: this.#diagnostics(a, checkArgs(a.def, this.#args(a, req.config))) };
  }

  async plan(req: Req): Promise<{ diagnostics: Diagnostic[] }> {
    const a = this.#action(req.action_type);
    const args = this.#args(a, req.config);
    const failures = checkArgs(a.def, args);
    if (!failures.length) {
      const changing = (uid: string) => this.#changing.has(uid);
      failures.push(...(await this.#run(a.typeName, (ctx) => a.def.check(ctx, args, { changing }))));
    }
    return { diagnostics: this.#diagnostics(a, failures) };
  }

  /** The run's events: a progress event per line as it comes, then the completed event. */
  invoke(req: Req, call?: Pick<CallInfo, "signal">): AsyncGenerator<unknown> {
    const a = this.#action(req.action_type);
    const args = this.#args(a, req.config);
    const events = new EventQueue<unknown>();
    const progress = (message: string) => events.push({ progress: { message } });
    const completed = (diagnostics: Diagnostic[]) => {
      events.push({ completed: { diagnostics } });
      events.end();
    };
    const failures = checkArgs(a.def, args);
    if (failures.length) completed(this.#diagnostics(a, failures));
    else {
      this.#run(a.typeName, (ctx) => {
        const signal = call?.signal && ctx.signal ? AbortSignal.any([ctx.signal, call.signal]) : ctx.signal;
        const actionCtx: ActionContext = { ...ctx, signal, progress };
        return a.def.invoke(actionCtx, args);
      }).then(
        () => completed([]),
        (e: unknown) => completed([errorDiag(`${a.typeName} failed`, hclWords(messageOf(e), this.#names))]),
      );
    }
    return events.drain();
  }
}
