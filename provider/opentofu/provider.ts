/**
 * The OpenTofu front end: tfplugin6's Provider service over the same resource modules as the
 * Pulumi front ends. It translates the protocol (objects, unknowns, plans, partial state,
 * timeouts, import) and holds no resource logic of its own: check names bad input, diff says
 * what updates, redeploys or replaces, and the modules do the waits, adoption and retries.
 */
import {
  CONFIG_ENV,
  CwsClient,
  FUNCTIONS,
  Operations,
  PartialStateError,
  RESOURCES,
  STATE_VERSION,
  STATE_VERSION_KEY,
  UNKNOWN,
  checkFunctionArgs,
  fromState,
  type CheckFailure,
  type Context,
  type Props,
  type ProviderConfig,
  type ResourceModule,
} from "./core.ts";
import { errorDiag, hclPath, hclWords, messageOf, type Diagnostic } from "./diagnostics.ts";
import { UNKNOWN_VALUE, decodeMsgpack, encodeMsgpack, type MsgValue } from "./msgpack.ts";
import {
  PROVIDER_ATTRIBUTES,
  dataSourcesOf,
  resourcesOf,
  type PackageSchema,
  type TfAttribute,
  type TfResource,
} from "./tf-schema.ts";
import { checkTimeouts, timeoutMs, type TimeoutKey } from "./timeouts.ts";
import { isInput, planChange } from "./plan.ts";
import { schemaMessage } from "./schema-message.ts";
import { containsUnknownValue, sameJson, sameValue, toCore, toTf } from "./values.ts";

type TfObject = { [key: string]: MsgValue };
interface DynamicValue {
  msgpack?: Buffer;
  json?: Buffer;
}
type Req = Record<string, unknown> & { type_name?: string };

function decodeValue(v: DynamicValue | undefined): TfObject | null {
  if (v?.msgpack?.length) return decodeMsgpack(v.msgpack) as TfObject | null;
  if (v?.json?.length) return JSON.parse(v.json.toString("utf8")) as TfObject | null;
  return null;
}

const encodeValue = (v: MsgValue): DynamicValue => ({ msgpack: encodeMsgpack(v) });

export class TofuProvider {
  readonly #resources: Map<string, TfResource>;
  readonly #dataSources: Map<string, TfResource>;
  readonly #names: Set<string>;
  #config: ProviderConfig | undefined;
  #configError = "the cws provider was not configured";
  #client: CwsClient | undefined;
  readonly #operations = new Operations();
  /** Progress lines; OpenTofu keeps a plugin's stderr in its log (TF_LOG). */
  readonly #log: (line: string) => void;

  constructor(schema: PackageSchema, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
    this.#resources = new Map(resourcesOf(schema).map((r) => [r.typeName, r]));
    this.#dataSources = new Map(dataSourcesOf(schema).map((r) => [r.typeName, r]));
    this.#names = new Set();
    const collect = (attrs: TfAttribute[]) => {
      for (const a of attrs) {
        this.#names.add(a.key);
        if (a.nested) collect(a.nested.attributes);
      }
    };
    for (const r of [...this.#resources.values(), ...this.#dataSources.values()]) collect(r.attributes);
    this.#log = log;
  }

  #resource(typeName: unknown): { r: TfResource; m: ResourceModule } {
    const r = this.#resources.get(String(typeName));
    const m = r && RESOURCES[r.coreName];
    if (!r || !m) throw new Error(`the cws provider has no resource type ${String(typeName)}`);
    return { r, m };
  }

  #failures(failures: CheckFailure[], summary: string): Diagnostic[] {
    return failures.map((f) =>
      errorDiag(`${summary}: ${hclPath(f.property)}`, hclWords(f.reason, this.#names), f.property),
    );
  }

  #clientOrThrow(): CwsClient {
    if (!this.#config) throw new Error(this.#configError);
    this.#client ??= new CwsClient({
      baseUrl: this.#config.baseUrl,
      org: this.#config.org,
      token: this.#config.token,
    });
    return this.#client;
  }

  #withContext<T>(
    label: string,
    timeout: number | undefined,
    work: (ctx: Context) => Promise<T>,
  ): Promise<T> {
    const base = {
      client: this.#clientOrThrow(),
      log: (message: string) => this.#log(`[INFO] ${label}: ${message}`),
    };
    return this.#operations.run(base, timeout, work);
  }

  // --- provider ----------------------------------------------------------------------------------

  getMetadata(): unknown {
    return {
      server_capabilities: {
        plan_destroy: false,
        get_provider_schema_optional: false,
        move_resource_state: false,
      },
      resources: [...this.#resources.keys()].map((type_name) => ({ type_name })),
      data_sources: [...this.#dataSources.keys()].map((type_name) => ({ type_name })),
      functions: [],
      ephemeral_resources: [],
    };
  }

  getProviderSchema(): unknown {
    const schemas = (m: Map<string, TfResource>, timeouts: boolean) =>
      Object.fromEntries(
        [...m.values()].map((r) => [
          r.typeName,
          schemaMessage(r.attributes, r.description, timeouts ? STATE_VERSION : 0, timeouts),
        ]),
      );
    return {
      provider: schemaMessage(
        PROVIDER_ATTRIBUTES,
        "The Compute Workload Service: where it is and who calls it.",
        0,
        false,
      ),
      resource_schemas: schemas(this.#resources, true),
      data_source_schemas: schemas(this.#dataSources, false),
      server_capabilities: {
        plan_destroy: false,
        get_provider_schema_optional: false,
        move_resource_state: false,
      },
      functions: {},
      ephemeral_resource_schemas: {},
      diagnostics: [],
    };
  }

  validateProviderConfig(req: Req): unknown {
    const config = decodeValue(req.config as DynamicValue);
    const endpoint = config?.endpoint;
    const diagnostics: Diagnostic[] = [];
    if (typeof endpoint === "string" && !/^https?:\/\/[^/]/.test(endpoint)) {
      diagnostics.push(
        errorDiag(
          "Invalid value for endpoint",
          `endpoint must be an http(s) URL including /v3, e.g. https://api.example.com/v3 (got "${endpoint}")`,
          "endpoint",
        ),
      );
    }
    return { diagnostics };
  }

  configureProvider(req: Req): unknown {
    const raw = decodeValue(req.config as DynamicValue);
    const diagnostics: Diagnostic[] = [];
    const values: Record<string, string> = {};
    for (const a of PROVIDER_ATTRIBUTES) {
      const v = raw?.[a.name];
      if (v === UNKNOWN_VALUE) {
        diagnostics.push(
          errorDiag(
            `Unknown value for ${a.name}`,
            `${a.name} depends on a value not known until apply`,
            a.name,
          ),
        );
        continue;
      }
      const env = CONFIG_ENV[a.key as keyof typeof CONFIG_ENV];
      const value = typeof v === "string" && v ? v : process.env[env];
      if (!value) {
        diagnostics.push(
          errorDiag(
            `Missing ${a.name}`,
            `set ${a.name} in the provider "cws" block or the ${env} environment variable`,
            a.name,
          ),
        );
      } else values[a.key] = value;
    }
    this.#client = undefined;
    if (diagnostics.length) {
      this.#config = undefined;
      this.#configError = diagnostics.map((d) => d.detail).join("; ");
    } else {
      this.#config = { baseUrl: values.baseUrl!, org: values.org!, token: values.apiToken! };
    }
    return { diagnostics };
  }

  stopProvider(): unknown {
    this.#operations.cancel();
    return {};
  }

  getFunctions(): unknown {
    return { functions: {}, diagnostics: [] };
  }

  getResourceIdentitySchemas(): unknown {
    return { identity_schemas: {}, diagnostics: [] };
  }

  // --- resources ---------------------------------------------------------------------------------

  validateResourceConfig(req: Req): unknown {
    const { r, m } = this.#resource(req.type_name);
    const config = decodeValue(req.config as DynamicValue);
    const diagnostics = this.#checkConfig(r, m, {}, config);
    return { diagnostics };
  }

  #checkConfig(r: TfResource, m: ResourceModule, olds: Props, config: TfObject | null) {
    const failures: CheckFailure[] = [...checkTimeouts(config?.timeouts ?? null)];
    for (const a of r.attributes.filter((x) => x.json)) {
      const v = config?.[a.name];
      if (typeof v !== "string") continue;
      let doc: unknown;
      try {
        doc = JSON.parse(v);
      } catch {
        doc = undefined;
      }
      if (!doc || typeof doc !== "object" || Array.isArray(doc))
        failures.push({ property: a.key, reason: `${a.name} must be a JSON object (use jsonencode({...}))` });
    }
    const news = toCore(r.attributes.filter(isInput), config);
    const checked = m.check(olds, news);
    return this.#failures([...failures, ...checked.failures], "Invalid value");
  }

  /** Prior state as the core's properties (inputs and outputs; `id` and timeouts are ours). */
  #olds(r: TfResource, state: TfObject): Props {
    return toCore(
      r.attributes.filter((a) => a.name !== "id"),
      state,
    );
  }

  upgradeResourceState(req: Req): unknown {
    const { r } = this.#resource(req.type_name);
    const raw = req.raw_state as { json?: Buffer } | undefined;
    const prior = raw?.json?.length ? (JSON.parse(raw.json.toString("utf8")) as TfObject) : {};
    const props = fromState(r.coreName, {
      ...this.#olds(r, prior),
      [STATE_VERSION_KEY]: Number(req.version ?? 0),
    });
    const state: TfObject = {
      ...toTf(r.attributes, props),
      id: prior.id ?? null,
      timeouts: timeoutsOf(prior),
    };
    return { upgraded_state: encodeValue(state), diagnostics: [] };
  }

  async readResource(req: Req): Promise<unknown> {
    const { r, m } = this.#resource(req.type_name);
    const state = decodeValue(req.current_state as DynamicValue);
    if (!state) return { new_state: encodeValue(null), diagnostics: [] };
    const id = String(state.id);
    const read = await this.#withContext(
      `${r.typeName} ${id}`,
      timeoutMs(state.timeouts ?? null, "read"),
      (ctx) => m.read(ctx, id, this.#olds(r, state)),
    );
    if (!read) return { new_state: encodeValue(null), diagnostics: [] }; // gone: dropped from state
    const fresh = this.#stateOf(r, read.id, read.inputs, read.outputs);
    for (const a of r.attributes) {
      // The same value as before stays as it was written (a JSON document keeps its spelling).
      const before = state[a.name] ?? null;
      if (a.json ? sameJson(before, fresh[a.name]!) : sameValue(before, fresh[a.name]))
        fresh[a.name] = before;
    }
    fresh.timeouts = timeoutsOf(state);
    return { new_state: encodeValue(fresh), diagnostics: [] };
  }

  /** An object's state: inputs as the core reads them back, outputs, the id. */
  #stateOf(r: TfResource, id: string, inputs: Props, outputs: Props): TfObject {
    const all = toTf(r.attributes, { ...outputs, ...inputs });
    for (const a of r.attributes.filter(isInput)) if (inputs[a.key] === undefined) all[a.name] = null;
    return { ...all, id, timeouts: null };
  }

  planResourceChange(req: Req): unknown {
    const { r, m } = this.#resource(req.type_name);
    const prior = decodeValue(req.prior_state as DynamicValue);
    const proposed = decodeValue(req.proposed_new_state as DynamicValue);
    const config = decodeValue(req.config as DynamicValue);
    if (!proposed || !config) return { planned_state: encodeValue(null), diagnostics: [] };
    const olds = prior ? this.#olds(r, prior) : {};
    const failures = this.#checkConfig(r, m, olds, config);
    if (failures.length) return { diagnostics: failures };
    if (!prior) {
      const planned: TfObject = { ...proposed };
      for (const a of r.attributes) if (a.computed) planned[a.name] = UNKNOWN_VALUE;
      return { planned_state: encodeValue(planned), diagnostics: [] };
    }
    const news = m.check(olds, toCore(r.attributes.filter(isInput), config)).inputs;
    const change = planChange(r, m.diff(String(prior.id), olds, news), prior, proposed, config);
    return {
      planned_state: encodeValue(change.planned),
      requires_replace: change.requiresReplace.map((name) => ({ steps: [{ attribute_name: name }] })),
      diagnostics: change.diagnostics,
    };
  }

  async applyResourceChange(req: Req): Promise<unknown> {
    const { r, m } = this.#resource(req.type_name);
    const prior = decodeValue(req.prior_state as DynamicValue);
    const planned = decodeValue(req.planned_state as DynamicValue);
    if (!planned) {
      if (!prior) return { new_state: encodeValue(null), diagnostics: [] };
      const id = String(prior.id);
      try {
        await this.#withContext(`${r.typeName} ${id}`, timeoutMs(prior.timeouts ?? null, "delete"), (ctx) =>
          m.delete(ctx, id, this.#olds(r, prior)),
        );
        return { new_state: encodeValue(null), diagnostics: [] };
      } catch (e) {
        return {
          new_state: encodeValue(prior),
          diagnostics: [errorDiag(`deleting ${r.typeName} ${id} failed`, messageOf(e))],
        };
      }
    }
    const op: TimeoutKey = prior ? "update" : "create";
    const olds = prior ? this.#olds(r, prior) : {};
    const news = m.check(olds, toCore(r.attributes.filter(isInput), planned)).inputs;
    const label = prior ? `${r.typeName} ${String(prior.id)}` : `${r.typeName} ${String(planned.name ?? "")}`;
    const merge = (id: string, outputs: Props): TfObject => {
      const out = toTf(r.attributes, outputs);
      const state: TfObject = { ...planned };
      for (const a of r.attributes)
        if (containsUnknownValue(state[a.name] ?? null)) state[a.name] = out[a.name] ?? null;
      state.id = id;
      return state;
    };
    try {
      if (!prior) {
        const res = await this.#withContext(label, timeoutMs(planned.timeouts ?? null, op), (ctx) =>
          m.create(ctx, news),
        );
        return { new_state: encodeValue(merge(res.id, res.outputs)), diagnostics: [] };
      }
      const id = String(prior.id);
      const inputsChanged = r.attributes.some(
        (a) => isInput(a) && !sameValue(planned[a.name], prior[a.name] ?? null),
      );
      if (!inputsChanged) return { new_state: encodeValue(merge(id, olds)), diagnostics: [] };
      const outputs = await this.#withContext(label, timeoutMs(planned.timeouts ?? null, op), (ctx) =>
        m.update(ctx, id, olds, news),
      );
      return { new_state: encodeValue(merge(id, outputs)), diagnostics: [] };
    } catch (e) {
      const summary = `${prior ? "updating" : "creating"} ${label} failed`;
      if (e instanceof PartialStateError) {
        // It exists but did not reach the wanted state: kept (OpenTofu taints a failed create).
        return {
          new_state: encodeValue(merge(e.id, { ...olds, ...e.properties })),
          diagnostics: [errorDiag(summary, messageOf(e))],
        };
      }
      return { new_state: encodeValue(prior), diagnostics: [errorDiag(summary, messageOf(e))] };
    }
  }

  async importResourceState(req: Req): Promise<unknown> {
    const { r, m } = this.#resource(req.type_name);
    const id = String(req.id ?? "");
    const read = await this.#withContext(`${r.typeName} ${id}`, undefined, (ctx) => m.read(ctx, id, {}));
    if (!read) {
      return {
        imported_resources: [],
        diagnostics: [
          errorDiag(`cannot import ${r.typeName} ${id}`, `the service has no ${r.coreName} with uid ${id}`),
        ],
      };
    }
    return {
      imported_resources: [
        { type_name: r.typeName, state: encodeValue(this.#stateOf(r, read.id, read.inputs, read.outputs)) },
      ],
      diagnostics: [],
    };
  }

  // --- data sources ------------------------------------------------------------------------------

  #dataSource(typeName: unknown) {
    const r = this.#dataSources.get(String(typeName));
    const fn = r && FUNCTIONS[r.coreName];
    if (!r || !fn) throw new Error(`the cws provider has no data source ${String(typeName)}`);
    return { r, fn, args: r.attributes.filter(isInput) };
  }

  validateDataResourceConfig(req: Req): unknown {
    const { fn, args } = this.#dataSource(req.type_name);
    const values = toCore(args, decodeValue(req.config as DynamicValue));
    const known = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== UNKNOWN));
    return { diagnostics: this.#failures(checkFunctionArgs(fn, known), "Invalid value") };
  }

  async readDataSource(req: Req): Promise<unknown> {
    const { r, fn, args } = this.#dataSource(req.type_name);
    const config = decodeValue(req.config as DynamicValue);
    const values = toCore(args, config);
    const failures = checkFunctionArgs(fn, values);
    if (failures.length) return { diagnostics: this.#failures(failures, "Invalid value") };
    const result = await fn.run(this.#clientOrThrow(), values);
    return { state: encodeValue(toTf(r.attributes, { ...values, ...result })), diagnostics: [] };
  }
}

function timeoutsOf(state: TfObject): MsgValue {
  const t = state.timeouts;
  if (!t || typeof t !== "object" || Array.isArray(t)) return null;
  return {
    create: t.create ?? null,
    read: t.read ?? null,
    update: t.update ?? null,
    delete: t.delete ?? null,
  };
}
