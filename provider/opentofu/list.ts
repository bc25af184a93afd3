/**
 * List resources (Terraform 1.14+, `terraform query`) over the provider core's list definitions
 * (core/list.ts, declared beside their kinds): their schemas (GetProviderSchema's
 * list_resource_schemas: the filters, as the attributes of the list block's `config`),
 * ValidateListResourceConfig (the filters' rules) and ListResource: one event per object, with
 * its identity ({ org, uid }, as an import block takes it) and a display name, and with
 * `include_resource` (which `-generate-config-out` implies) the object as an import reads it.
 * OpenTofu asks for none of these and ignores the schemas it does not know.
 */
import { listFailures, type ListDefinition, type Listed } from "../core/list.ts";
import type { CheckFailure, Context, ResourceModule } from "../core/types.ts";
import { camelToSnake } from "../core/wire.ts";
import type { CallInfo } from "../frontend/grpc-server.ts";
import { errorDiag, hclPath, type Diagnostic, type Step } from "./diagnostics.ts";
import { identityData } from "./identity.ts";
import type { TfObject } from "./msgpack.ts";
import { schemaMessage } from "./schema-message.ts";
import { stateOf } from "./state.ts";
import type { TfAttribute, TfResource } from "./tf-schema.ts";
import { decodeValue, encodeValue, toCore, type DynamicValue } from "./values.ts";
import { keepTwins } from "./write-only.ts";

type Req = Record<string, unknown>;

/** Runs `work` with a context of the front end's session (the client, a log, the cancel signal). */
export type RunWithContext = <T>(label: string, work: (ctx: Context) => Promise<T>) => Promise<T>;

/** How many objects of a list are read at once when their full objects are asked for. */
const READS_AT_ONCE = 8;

/** A list resource as Terraform knows it: the resource it lists, and its filters' attributes. */
export interface TfList {
  r: TfResource;
  m: ResourceModule;
  def: ListDefinition;
  attributes: TfAttribute[];
}

export function tfList(r: TfResource, m: ResourceModule, def: ListDefinition): TfList {
  const attributes = Object.entries(def.filters).map(([key, f]): TfAttribute => ({
    name: camelToSnake(key),
    key,
    type: "string",
    optional: true,
    description: f.description,
  }));
  return { r, m, def, attributes };
}

/** `name (RENTAL, running)`: how `terraform query` shows an object. */
export const displayName = (l: Listed) => (l.summary ? `${l.name} (${l.summary})` : l.name);

export class TofuLists {
  readonly #lists: Map<string, TfList>;
  readonly #run: RunWithContext;
  readonly #org: () => string | undefined;

  constructor(lists: TfList[], run: RunWithContext, org: () => string | undefined) {
    this.#lists = new Map(lists.map((l) => [l.r.typeName, l]));
    this.#run = run;
    this.#org = org;
  }

  metadata(): { type_name: string }[] {
    return [...this.#lists.keys()].map((type_name) => ({ type_name }));
  }

  /** GetProviderSchema's list_resource_schemas: each list's filters. */
  schemas(): Record<string, unknown> {
    return Object.fromEntries(
      [...this.#lists.values()].map((l) => [
        l.r.typeName,
        schemaMessage(l.attributes, l.def.description, 0, false),
      ]),
    );
  }

  #list(typeName: unknown): TfList {
    const l = this.#lists.get(String(typeName));
    if (!l) throw new Error(`the cws provider has no list resource ${String(typeName)}`);
    return l;
  }

  /** The filters a request's `config` gives, and what is wrong with them. */
  #filters(l: TfList, config: DynamicValue | undefined) {
    const filters = Object.fromEntries(
      Object.entries(toCore(l.attributes, decodeValue(config))).filter(([, v]) => v !== null),
    );
    return { filters, failures: listFailures(l.def, filters) };
  }

  #diagnostics(l: TfList, failures: CheckFailure[], under: Step[]): Diagnostic[] {
    return failures.map((f) => {
      const d = errorDiag(`Invalid filter: ${hclPath(f.property)}`, f.reason, f.property);
      return d.attribute ? { ...d, attribute: { steps: [...under, ...d.attribute.steps] } } : d;
    });
  }

  /**
   * ValidateListResourceConfig: the filters' rules. Terraform places these diagnostics in the
   * list block, so they name `config.<filter>`.
   */
  validate(req: Req): unknown {
    const l = this.#list(req.type_name);
    const { failures } = this.#filters(l, req.config as DynamicValue | undefined);
    return { diagnostics: this.#diagnostics(l, failures, [{ attribute_name: "config" }]) };
  }

  /**
   * ListResource: the org's objects the filters select, at most `limit` of them, one event each
   * (sent once all are listed and, with include_resource, read: Terraform takes the whole list
   * before it shows any). Terraform places an event's diagnostics in the `config` block itself.
   */
  async *list(req: Req, call?: CallInfo): AsyncGenerator<unknown> {
    const l = this.#list(req.type_name);
    const { filters, failures } = this.#filters(l, req.config as DynamicValue | undefined);
    if (failures.length) {
      yield { diagnostic: this.#diagnostics(l, failures, []) };
      return;
    }
    const limit = Number(req.limit ?? 0) > 0 ? Number(req.limit) : Infinity;
    const full = !!req.include_resource_object;
    const label = `list ${l.r.typeName}`;
    const org = this.#org();
    const event = (listed: Listed, state?: TfObject) => ({
      identity: identityData(org, listed.uid),
      display_name: displayName(listed),
      ...(state ? { resource_object: encodeValue(state) } : {}),
      diagnostic: [],
    });
    let sent = 0;
    let batch: Listed[] = [];
    // Listed in one context (its client, cancelled with the call), read in batches.
    const events = await this.#run(label, async (ctx) => {
      const signal = call ? AbortSignal.any([call.signal, ...(ctx.signal ? [ctx.signal] : [])]) : ctx.signal;
      const out: unknown[] = [];
      const flush = async () => {
        if (!full) out.push(...batch.map((x) => event(x)));
        else {
          const read = await Promise.all(batch.map((x) => l.m.read({ ...ctx, signal }, x.uid, {})));
          batch.forEach((x, i) => {
            const r = read[i];
            // Gone between the list and the read: left out.
            if (r) out.push(event(x, keepTwins(l.r, stateOf(l.r, r.id, r.inputs, r.outputs), null)));
          });
        }
        batch = [];
      };
      for await (const listed of l.def.list(ctx.client, filters, signal)) {
        if (sent >= limit) break;
        batch.push(listed);
        sent++;
        if (batch.length >= READS_AT_ONCE) await flush();
      }
      await flush();
      return out;
    });
    yield* events;
  }
}
