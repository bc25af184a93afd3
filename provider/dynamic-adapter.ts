/**
 * The dynamic-provider front end: adapts the resource modules to `pulumi.dynamic.ResourceProvider`.
 * Loaded through `pulumi-cws/provider/dynamic` (dynamic.ts) inside the engine's provider process.
 */
import type * as Client from "../client/client.ts";
import { resolveConfig, type ConfigSource } from "./config.ts";
import { requireCached } from "./load.ts";
import { resourceModule } from "./registry.ts";
import { PartialStateError, type Context, type Props } from "./resource.ts";

let source: ConfigSource = () => undefined;
let context: { ctx: Context; config: string } | undefined;

/**
 * Called by the engine with the stack's configuration (secrets unwrapped), once for each resource
 * type's provider, always with the same configuration.
 */
export function configure(config: { get(key: string): string | undefined }): void {
  source = (k) => config.get(k);
}

/**
 * The client is made with the first call that needs it and kept (with its connections) while the
 * configuration is the same: check and diff (all a preview asks for) never load the HTTP stack.
 */
function ctx(): Context {
  const cfg = resolveConfig(source);
  const key = JSON.stringify(cfg);
  if (context?.config !== key) {
    const { CwsClient } = requireCached<typeof Client>(import.meta.url, "../client/client");
    const ctx: Context = {
      client: new CwsClient({ baseUrl: cfg.baseUrl, org: cfg.org, token: cfg.token }),
      log: (m) => process.stderr.write(`cws: ${m}\n`),
    };
    context = { ctx, config: key };
  }
  return context.ctx;
}

/** Engine-internal keys never reach the modules. */
function clean(props: Props): Props {
  const { __provider: _p, ...rest } = props;
  return rest;
}

/** Errors cross into the engine with their message only; partial state keeps its id and outputs. */
function rethrow(e: unknown): never {
  if (e instanceof PartialStateError) throw e;
  const err = new Error(e instanceof Error ? e.message : String(e));
  throw err;
}

export function check(type: string, olds: Props, news: Props) {
  const r = resourceModule(type).check(clean(olds), clean(news));
  return { inputs: r.inputs, failures: r.failures };
}

export function diff(type: string, id: string, olds: Props, news: Props) {
  const d = resourceModule(type).diff(id, clean(olds), clean(news));
  return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function create(type: string, inputs: Props) {
  try {
    const r = await resourceModule(type).create(ctx(), clean(inputs));
    return { id: r.id, outs: r.outputs };
  } catch (e) {
    rethrow(e);
  }
}

export async function read(type: string, id: string, props: Props) {
  try {
    const r = await resourceModule(type).read(ctx(), id, clean(props ?? {}));
    // An empty id tells the engine the resource is gone.
    return r ? { id: r.id, props: r.outputs, inputs: r.inputs } : { id: "", props: {} };
  } catch (e) {
    rethrow(e);
  }
}

export async function update(type: string, id: string, olds: Props, news: Props) {
  try {
    return { outs: await resourceModule(type).update(ctx(), id, clean(olds), clean(news)) };
  } catch (e) {
    rethrow(e);
  }
}

export async function remove(type: string, id: string, props: Props) {
  try {
    await resourceModule(type).delete(ctx(), id, clean(props));
  } catch (e) {
    rethrow(e);
  }
}
