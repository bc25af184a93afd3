/**
 * The native plugin's adapter: Pulumi's ResourceProviderService (CwsPlugin) over the same resource
 * modules as the dynamic front end. It translates the protocol (Structs, secrets, preview,
 * timeouts, Cancel, detailed diffs, partial state) and holds no resource logic of its own; the
 * settings, the client and the running calls are the shared front-end base's (frontend/).
 */
import emptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import pluginPb from "@pulumi/pulumi/proto/plugin_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { Planned } from "../core/diff-words.ts";
import { fromState, toState } from "../core/state.ts";
import type { Autonaming } from "../core/naming.ts";
import type { CheckFailure, Context } from "../core/types.ts";
import type { EngineLog } from "../frontend/engine-log.ts";
import type { CallInfo } from "../frontend/grpc-server.ts";
import { cachedImport } from "../frontend/compile-cache.ts";
import { Session } from "../frontend/session.ts";
import { FUNCTIONS, checkFunctionArgs } from "../resources/functions/controller.ts";
import { PACKAGE } from "../schema/package-schema.ts";
import { diffResponse } from "./detailed-diff.ts";
import { grpcError } from "./grpc-error.ts";
import { listResponses } from "./list.ts";
import { CONFIG_KEYS, CONFIG_SECRETS, checkConfig, configFrom } from "./provider-config.ts";
import { moduleFor, parseUrn, secretsOfUrn } from "./urn.ts";
import { decode, encode, type Decoded } from "./values.ts";

export interface PluginOptions {
  version: string;
  schema: () => string;
  log: EngineLog;
}

/** Old state from the engine, in the current shape (state.ts); secrets stay wrapped through migrations. */
const decodeState = (urn: string, s: Parameters<typeof decode>[0]): Decoded =>
  decode(s, (raw) => fromState(parseUrn(urn).type, raw));

function failuresOf(failures: CheckFailure[]) {
  return failures.map((f) => {
    const pf = new providerPb.CheckFailure();
    pf.setProperty(f.property);
    pf.setReason(f.reason);
    return pf;
  });
}

const MODES = {
  [providerPb.CheckRequest.AutonamingOptions.Mode.PROPOSE]: "propose",
  [providerPb.CheckRequest.AutonamingOptions.Mode.ENFORCE]: "enforce",
  [providerPb.CheckRequest.AutonamingOptions.Mode.DISABLE]: "disable",
} as const;

/**
 * What the engine tells a Check for naming the resource (core/naming.ts): its logical name, its
 * random seed, and the stack's pulumi:autonaming (sent because Configure says the plugin
 * supports it; absent when the stack leaves it at its default).
 */
function autonamingOf(req: InstanceType<typeof providerPb.CheckRequest>): Autonaming {
  const options = req.getAutonaming();
  const seed = req.getRandomseed_asU8();
  return {
    logicalName: req.getName() || parseUrn(req.getUrn()).name,
    ...(seed.length ? { seed } : {}),
    ...(options
      ? { engine: { mode: MODES[options.getMode()], proposedName: options.getProposedName() } }
      : {}),
  };
}

export class CwsPlugin {
  readonly #opts: PluginOptions;
  /** The HTTP client is loaded by the first call that needs the service (frontend/session.ts). */
  readonly #session = new Session(
    async () => (await cachedImport(import("../../client/index.ts"))).CwsClient,
    "cws:baseUrl (or CWS_BASE_URL)",
  );
  /** The resources checked in this process: diff speaks for those only (diff-words.ts). */
  readonly #planned = new Planned();

  constructor(opts: PluginOptions) {
    this.#opts = opts;
  }

  /**
   * Runs `work` with a module context: the client, the call's timeout and Cancel, and the resource's
   * line (its status line for a wait's progress).
   */
  #withContext<T>(
    urn: string,
    timeoutSec: number,
    work: (ctx: Context) => Promise<T>,
    secrets?: string[],
  ): Promise<T> {
    const engine = this.#opts.log;
    const log = (message: string) => void engine.log(urn, message);
    return this.#session.run(
      log,
      timeoutSec > 0 ? timeoutSec * 1000 : undefined,
      (ctx) => work(secrets ? { ...ctx, secrets } : ctx),
      { status: (message) => void engine.log(urn, message, "info", true), notice: log },
    );
  }

  // --- plugin ---------------------------------------------------------------------------------

  getPluginInfo(): unknown {
    const info = new pluginPb.PluginInfo();
    info.setVersion(this.#opts.version);
    return info;
  }

  getSchema(req: InstanceType<typeof providerPb.GetSchemaRequest>): unknown {
    if (req.getVersion() > 0) throw new Error(`unsupported schema version ${req.getVersion()}`);
    const res = new providerPb.GetSchemaResponse();
    res.setSchema(this.#opts.schema());
    return res;
  }

  checkConfig(req: InstanceType<typeof providerPb.CheckRequest>): unknown {
    const { props } = decode(req.getNews());
    const res = new providerPb.CheckResponse();
    res.setInputs(encode(props, CONFIG_SECRETS));
    res.setFailuresList(failuresOf(checkConfig(props)));
    return res;
  }

  diffConfig(req: InstanceType<typeof providerPb.DiffRequest>): unknown {
    const olds = decode(req.getOldInputs() ?? req.getOlds()).props;
    const news = decode(req.getNews()).props;
    const changed = CONFIG_KEYS.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
    const res = new providerPb.DiffResponse();
    res.setChanges(
      changed.length
        ? providerPb.DiffResponse.DiffChanges.DIFF_SOME
        : providerPb.DiffResponse.DiffChanges.DIFF_NONE,
    );
    res.setDiffsList(changed);
    return res;
  }

  configure(req: InstanceType<typeof providerPb.ConfigureRequest>): unknown {
    const args = decode(req.getArgs()).props;
    const variables = new Map(req.getVariablesMap().toArray());
    // What is wrong is reported on the first call that needs the service (a preview may not need it).
    this.#session.configure(configFrom(args, variables));
    const res = new providerPb.ConfigureResponse();
    res.setAcceptsecrets(true);
    res.setSupportspreview(true);
    res.setAcceptresources(false);
    res.setAcceptoutputs(false);
    // The engine then sends the stack's pulumi:autonaming with each Check (autonamingOf).
    res.setSupportsAutonamingConfiguration(true);
    return res;
  }

  cancel(): unknown {
    this.#session.cancel();
    return new emptyPb.Empty();
  }

  // --- resources ------------------------------------------------------------------------------

  check(req: InstanceType<typeof providerPb.CheckRequest>): unknown {
    const urn = req.getUrn();
    const olds = decodeState(urn, req.getOlds());
    const news = decode(req.getNews());
    const r = moduleFor(urn).check(olds.props, news.props, autonamingOf(req));
    this.#planned.checked(urn);
    const res = new providerPb.CheckResponse();
    res.setInputs(encode(toState(r.inputs), [...news.secrets, ...secretsOfUrn(urn)]));
    res.setFailuresList(failuresOf(r.failures));
    return res;
  }

  diff(req: InstanceType<typeof providerPb.DiffRequest>): unknown {
    const urn = req.getUrn();
    const olds = decodeState(urn, req.getOlds()).props;
    const news = decodeState(urn, req.getNews()).props;
    const d = moduleFor(urn).diff(req.getId(), olds, news);
    const { type } = parseUrn(urn);
    for (const words of this.#planned.words(urn, type, d, news.name ?? olds.name, olds.status))
      void this.#opts.log.log(urn, words);
    return diffResponse(d, olds, news);
  }

  async create(req: InstanceType<typeof providerPb.CreateRequest>): Promise<unknown> {
    const urn = req.getUrn();
    const inputs = decodeState(urn, req.getProperties());
    const secrets = [...inputs.secrets, ...secretsOfUrn(urn)];
    const res = new providerPb.CreateResponse();
    if (req.getPreview()) {
      res.setProperties(encode(toState(inputs.props), secrets));
      return res;
    }
    try {
      const r = await this.#withContext(
        urn,
        req.getTimeout(),
        (ctx) => moduleFor(urn).create(ctx, inputs.props),
        inputs.secretValues,
      );
      res.setId(r.id);
      res.setProperties(encode(toState(r.outputs), secrets));
      return res;
    } catch (e) {
      throw grpcError(e, secrets);
    }
  }

  async read(req: InstanceType<typeof providerPb.ReadRequest>): Promise<unknown> {
    const urn = req.getUrn();
    const props = decodeState(urn, req.getProperties());
    const inputs = decodeState(urn, req.getInputs());
    const secrets = [...props.secrets, ...inputs.secrets, ...secretsOfUrn(urn)];
    const r = await this.#withContext(
      urn,
      req.getTimeout(),
      (ctx) => moduleFor(urn).read(ctx, req.getId(), props.props),
      [...props.secretValues, ...inputs.secretValues],
    );
    const res = new providerPb.ReadResponse();
    if (!r) return res; // gone: an empty id drops it from state
    res.setId(r.id);
    res.setProperties(encode(toState(r.outputs), secrets));
    res.setInputs(encode(toState(r.inputs), secrets));
    return res;
  }

  async update(req: InstanceType<typeof providerPb.UpdateRequest>): Promise<unknown> {
    const urn = req.getUrn();
    const olds = decodeState(urn, req.getOlds());
    const news = decodeState(urn, req.getNews());
    const secrets = [...olds.secrets, ...news.secrets, ...secretsOfUrn(urn)];
    const res = new providerPb.UpdateResponse();
    if (req.getPreview()) {
      res.setProperties(encode(toState({ ...olds.props, ...news.props }), secrets));
      return res;
    }
    try {
      const outputs = await this.#withContext(
        urn,
        req.getTimeout(),
        (ctx) => moduleFor(urn).update(ctx, req.getId(), olds.props, news.props),
        [...olds.secretValues, ...news.secretValues],
      );
      res.setProperties(encode(toState(outputs), secrets));
      return res;
    } catch (e) {
      throw grpcError(e, secrets);
    }
  }

  async delete(req: InstanceType<typeof providerPb.DeleteRequest>): Promise<unknown> {
    const urn = req.getUrn();
    await this.#withContext(urn, req.getTimeout(), (ctx) =>
      moduleFor(urn).delete(ctx, req.getId(), decodeState(urn, req.getProperties()).props),
    );
    return new emptyPb.Empty();
  }

  /** List (a server stream): one page of a kind's objects, and where the next starts (native/list.ts). */
  list(req: InstanceType<typeof providerPb.ListRequest>, call?: CallInfo): AsyncGenerator<unknown> {
    const log = (message: string) => void this.#opts.log.log("", message);
    return listResponses(req, (work) => this.#session.run(log, undefined, work), call);
  }

  async invoke(req: InstanceType<typeof providerPb.InvokeRequest>): Promise<unknown> {
    const tok = req.getTok();
    const name = tok.startsWith(`${PACKAGE}:index:`) ? tok.slice(`${PACKAGE}:index:`.length) : tok;
    const fn = FUNCTIONS[name];
    if (!fn) throw new Error(`${PACKAGE}: unknown function ${tok}`);
    const args = decode(req.getArgs()).props;
    // Bad arguments are an error, not the response's `failures`: `pulumi do` prints an empty result
    // for those and exits 0, while a program shows either.
    const failures = checkFunctionArgs(fn, args);
    if (failures.length) throw new Error(failures.map((f) => f.reason).join("; "));
    const res = new providerPb.InvokeResponse();
    const secrets = Object.keys(fn.result).filter((k) => fn.result[k]!.secret);
    res.setReturn(encode(await fn.run(await this.#session.client(), args), secrets));
    return res;
  }
}
