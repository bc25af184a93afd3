/**
 * The native plugin: Pulumi's ResourceProviderService over the same resource modules as the
 * dynamic front end. It translates the protocol (Structs, secrets, preview, timeouts, Cancel,
 * detailed diffs, partial state) and holds no resource logic of its own.
 */
import * as grpc from "@grpc/grpc-js";
import anyPb from "google-protobuf/google/protobuf/any_pb.js";
import emptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import pluginPb from "@pulumi/pulumi/proto/plugin_pb.js";
import providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import statusPb from "@pulumi/pulumi/proto/status_pb.js";
import { CwsClient } from "../../client/index.ts";
import type { ProviderConfig } from "../core/config.ts";
import { FUNCTIONS, checkFunctionArgs } from "../resources/functions/controller.ts";
import { secretsOf } from "../core/definition.ts";
import { DEFINITIONS, RESOURCES } from "../registry.ts";
import { PartialStateError, type CheckFailure, type Context, type ResourceModule } from "../core/types.ts";
import { Planned } from "../core/diff-words.ts";
import { Operations } from "../core/operations.ts";
import { diffResponse } from "./detailed-diff.ts";
import type { EngineLog } from "./engine-log.ts";
import { CONFIG_KEYS, CONFIG_SECRETS, checkConfig, configFrom } from "./provider-config.ts";
import { PACKAGE } from "../schema/package-schema.ts";
import { fromState, toState } from "../core/state.ts";
import { decode, encode, type Decoded } from "./values.ts";

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;
type Callback = grpc.sendUnaryData<unknown>;

export interface PluginOptions {
  version: string;
  schema: () => string;
  log: EngineLog;
}

/** `urn:pulumi:stack::project::[parent$]cws:index:Workload::name` → the module and the name. */
function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  const token = qualified.slice(qualified.lastIndexOf("$") + 1);
  return { type: token.split(":")[2] ?? token, name: parts.slice(3).join("::") };
}

function moduleFor(urn: string): ResourceModule {
  const { type } = parseUrn(urn);
  const m = RESOURCES[type];
  if (!m) throw new Error(`${PACKAGE}: unknown resource type in ${urn}`);
  return m;
}

const secretsOfUrn = (urn: string) => {
  const def = DEFINITIONS[parseUrn(urn).type];
  return def ? secretsOf(def) : [];
};

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

/** A gRPC error; an object that exists but did not reach its state goes back as partial state. */
function grpcError(e: unknown, secrets: Iterable<string>): grpc.ServiceError {
  const message = e instanceof Error ? e.message : String(e);
  const metadata = new grpc.Metadata();
  if (e instanceof PartialStateError) {
    const detail = new providerPb.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(encode(toState(e.properties), secrets));
    detail.setReasonsList(e.reasons);
    const any = new anyPb.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusPb.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
}

export class CwsPlugin {
  readonly #opts: PluginOptions;
  #config: ProviderConfig | undefined;
  #configError: Error | undefined = new Error("the cws provider was not configured");
  #client: CwsClient | undefined;
  readonly #operations = new Operations();
  /** The resources checked in this process: diff speaks for those only (diff-words.ts). */
  readonly #planned = new Planned();

  constructor(opts: PluginOptions) {
    this.#opts = opts;
  }

  #clientOrThrow(): CwsClient {
    if (this.#configError) throw this.#configError;
    this.#client ??= new CwsClient({
      baseUrl: this.#config!.baseUrl,
      org: this.#config!.org,
      token: this.#config!.token,
    });
    return this.#client;
  }

  /** Runs `work` with a module context: the client, the call's timeout and Cancel, and the resource's line. */
  #withContext<T>(urn: string, timeoutSec: number, work: (ctx: Context) => Promise<T>): Promise<T> {
    const base = {
      client: this.#clientOrThrow(),
      log: (message: string) => void this.#opts.log.log(urn, message),
    };
    return this.#operations.run(base, timeoutSec > 0 ? timeoutSec * 1000 : undefined, work);
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
    try {
      this.#config = configFrom(args, variables);
      this.#configError = undefined;
    } catch (e) {
      // Reported on the first call that needs the service (a preview may not need it).
      this.#configError = e as Error;
    }
    this.#client = undefined;
    const res = new providerPb.ConfigureResponse();
    res.setAcceptsecrets(true);
    res.setSupportspreview(true);
    res.setAcceptresources(false);
    res.setAcceptoutputs(false);
    return res;
  }

  cancel(): unknown {
    this.#operations.cancel();
    return new emptyPb.Empty();
  }

  // --- resources ------------------------------------------------------------------------------

  check(req: InstanceType<typeof providerPb.CheckRequest>): unknown {
    const urn = req.getUrn();
    const olds = decodeState(urn, req.getOlds());
    const news = decode(req.getNews());
    const r = moduleFor(urn).check(olds.props, news.props);
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
      const r = await this.#withContext(urn, req.getTimeout(), (ctx) =>
        moduleFor(urn).create(ctx, inputs.props),
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
    const r = await this.#withContext(urn, req.getTimeout(), (ctx) =>
      moduleFor(urn).read(ctx, req.getId(), props.props),
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
      const outputs = await this.#withContext(urn, req.getTimeout(), (ctx) =>
        moduleFor(urn).update(ctx, req.getId(), olds.props, news.props),
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

  async invoke(req: InstanceType<typeof providerPb.InvokeRequest>): Promise<unknown> {
    const tok = req.getTok();
    const name = tok.startsWith(`${PACKAGE}:index:`) ? tok.slice(`${PACKAGE}:index:`.length) : tok;
    const fn = FUNCTIONS[name];
    if (!fn) throw new Error(`${PACKAGE}: unknown function ${tok}`);
    const args = decode(req.getArgs()).props;
    const res = new providerPb.InvokeResponse();
    const failures = checkFunctionArgs(fn, args);
    if (failures.length) {
      res.setFailuresList(failuresOf(failures));
      return res;
    }
    res.setReturn(encode(await fn.run(this.#clientOrThrow(), args)));
    return res;
  }
}

const HANDLED = [
  "getPluginInfo",
  "getSchema",
  "checkConfig",
  "diffConfig",
  "configure",
  "cancel",
  "check",
  "diff",
  "create",
  "read",
  "update",
  "delete",
  "invoke",
] as const;

/**
 * The gRPC service implementation: each RPC answered by the plugin, errors as gRPC errors. RPCs
 * left out (Handshake, Construct, Call, List, Attach, mappings) get UNIMPLEMENTED from grpc-js,
 * which the engine accepts for all of them.
 */
export function serviceImplementation(plugin: CwsPlugin): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  for (const name of HANDLED) {
    const method = (plugin[name] as (req: unknown) => unknown).bind(plugin);
    impl[name] = (call: Call<unknown>, callback: Callback) => {
      Promise.resolve()
        .then(() => method(call.request))
        .then(
          (res) => callback(null, res),
          (e: unknown) =>
            callback(
              e && typeof e === "object" && "code" in e
                ? (e as grpc.ServiceError)
                : { code: grpc.status.UNKNOWN, details: e instanceof Error ? e.message : String(e) },
            ),
        );
    };
  }
  return impl;
}

/** Starts the plugin's gRPC server on a free local port and returns the port. */
export async function serve(plugin: CwsPlugin): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1 << 30 });
  server.addService(providerGrpc.ResourceProviderService, serviceImplementation(plugin));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port, server };
}
