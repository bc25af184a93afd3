/**
 * The dynamic-provider front end: adapts the resource modules to `pulumi.dynamic.ResourceProvider`.
 * Loaded through `pulumi-cws/provider/dynamic` (dynamic.ts) inside the engine's provider process;
 * the settings, the client and the calls' contexts are the shared front-end base's (frontend/).
 */
import type * as Client from "../../client/client.ts";
import { Planned } from "../core/diff-words.ts";
import type { Autonaming } from "../core/naming.ts";
import { fromState, toState } from "../core/state.ts";
import { PartialStateError, type Context, type Props } from "../core/types.ts";
import { Session } from "../frontend/session.ts";
import { stackSettings } from "../frontend/stack-config.ts";
import { resourceModule } from "../registry.ts";
import { engine } from "./engine-log.ts";
import { requireCached } from "./load.ts";

/**
 * The client class is loaded with the first call that needs a client, and the client is kept
 * (with its connections) while the settings are the same: check and diff (all a preview asks
 * for) never load the HTTP stack.
 */
const session = new Session(
  () => requireCached<typeof Client>(import.meta.url, "../../client/client").CwsClient,
  "cws:baseUrl (or CWS_BASE_URL)",
);
// Until the engine configures it (a state's provider that never does), the environment alone.
session.configure(stackSettings(() => undefined));

/**
 * Called by the engine with the stack's configuration (secrets unwrapped), once for each resource
 * type's provider, always with the same configuration.
 */
export function configure(config: { get(key: string): string | undefined }): void {
  session.configure(stackSettings((k) => config.get(k)));
}

/** Progress lines of the modules: on the provider process's stderr. */
const progress = (m: string) => void process.stderr.write(`cws: ${m}\n`);

/** Engine-internal keys and the class's `__timeouts` never reach the modules. */
function clean(props: Props): Props {
  const { __provider: _p, [TIMEOUTS]: _t, [URN]: _u, ...rest } = props;
  return rest;
}

/** The resource's URN, which the resource class hands over as `__urn` (sdk/resource.ts). */
const URN = "__urn";

/**
 * The program's customTimeouts, which the resource class hands over as `__timeouts` (ms per
 * operation; sdk/resource.ts): kept in the outputs too, so that delete finds its own.
 */
const TIMEOUTS = "__timeouts";
type Operation = "create" | "update" | "delete";

/**
 * Runs `work` with the context of one operation: the program's timeout for it, if it set one, and
 * the resource's line (its status line for a wait's progress), whose URN the class hands over.
 */
function withContext<T>(props: Props, op: Operation, work: (ctx: Context) => Promise<T>): Promise<T> {
  const ms = (props[TIMEOUTS] as Partial<Record<Operation, number>> | undefined)?.[op];
  const urn = props[URN];
  if (typeof urn !== "string") return session.run(progress, ms, work);
  // The engine's answer to each message is awaited before the operation answers.
  const said: Promise<void>[] = [];
  const say: Pick<Context, "status" | "notice"> = {
    status: (m) => void said.push(engine.log(urn, m, "info", true)),
    notice: (m) => void said.push(engine.log(urn, m, "info")),
  };
  return session.run(progress, ms, work, say).finally(() => Promise.all(said));
}

/** Properties for the engine: the state version, and the timeouts `from` carried. */
function outputs(props: Props, from: Props): Props {
  return toState(from[TIMEOUTS] ? { ...props, [TIMEOUTS]: from[TIMEOUTS] } : props);
}

/** Checked inputs for the engine: also the URN, so that diff knows which resource it speaks for. */
function checked(props: Props, from: Props): Props {
  const out = outputs(props, from);
  return typeof from[URN] === "string" ? { ...out, [URN]: from[URN] } : out;
}

/** Old state of a type, in the current shape, without engine-internal keys (state.ts). */
function old(type: string, props: Props | undefined): Props {
  return fromState(type, clean(props ?? {}));
}

/**
 * Errors cross into the engine with their message only; partial state keeps its id and outputs,
 * with the `__provider` (and timeouts) of `from`, the operation's inputs, as a success's outputs
 * have them: the engine finds the provider of a later delete there.
 */
function rethrow(e: unknown, from: Props = {}): never {
  if (e instanceof PartialStateError) {
    const props = outputs(e.properties, from);
    if (from.__provider !== undefined) props.__provider = from.__provider;
    throw new PartialStateError(e.id, props, e.message);
  }
  const err = new Error(e instanceof Error ? e.message : String(e));
  throw err;
}

/** The resources checked in this process: diff speaks for those only (diff-words.ts). */
const planned = new Planned();

/**
 * Naming for a resource whose program leaves `name` unset: the engine gives a dynamic provider no
 * pulumi:autonaming, so the logical name (the last part of the URN the class hands over) and a
 * random suffix (core/naming.ts). Without the URN (a class of an older release) nothing is named.
 */
function autonamingOf(news: Props): Autonaming | undefined {
  const urn = news[URN];
  return typeof urn === "string" ? { logicalName: urn.split("::").slice(3).join("::") } : undefined;
}

export function check(type: string, olds: Props, news: Props) {
  const r = resourceModule(type).check(old(type, olds), clean(news), autonamingOf(news));
  if (typeof news[URN] === "string") planned.checked(news[URN]);
  return { inputs: checked(r.inputs, news), failures: r.failures };
}

export async function diff(type: string, id: string, olds: Props, news: Props) {
  const [before, after] = [old(type, olds), old(type, news)];
  const d = resourceModule(type).diff(id, before, after);
  // What a redeploy does is said on the resource's line, whose URN the class gives (the engine
  // passes a dynamic provider no resource).
  const urn = news[URN];
  if (typeof urn === "string")
    for (const words of planned.words(urn, type, d, after.name ?? before.name, before.status))
      if (words.includes("redeploys") || d.reasons?.some((r) => words.endsWith(r)))
        await engine.log(urn, words, "warning");
  return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function create(type: string, inputs: Props) {
  try {
    const m = resourceModule(type);
    const r = await withContext(inputs, "create", (ctx) => m.create(ctx, old(type, inputs)));
    return { id: r.id, outs: outputs(r.outputs, inputs) };
  } catch (e) {
    rethrow(e, inputs);
  }
}

export async function read(type: string, id: string, props: Props) {
  try {
    const m = resourceModule(type);
    const r = await session.run(progress, undefined, (ctx) => m.read(ctx, id, old(type, props)));
    // An empty id tells the engine the resource is gone.
    return r
      ? { id: r.id, props: outputs(r.outputs, props), inputs: toState(r.inputs) }
      : { id: "", props: {} };
  } catch (e) {
    rethrow(e);
  }
}

export async function update(type: string, id: string, olds: Props, news: Props) {
  try {
    const m = resourceModule(type);
    const outs = await withContext(news, "update", (ctx) =>
      m.update(ctx, id, old(type, olds), old(type, news)),
    );
    return { outs: outputs(outs, news) };
  } catch (e) {
    rethrow(e, news);
  }
}

export async function remove(type: string, id: string, props: Props) {
  try {
    const m = resourceModule(type);
    await withContext(props, "delete", (ctx) => m.delete(ctx, id, old(type, props)));
  } catch (e) {
    rethrow(e);
  }
}
