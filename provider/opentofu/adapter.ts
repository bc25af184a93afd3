/**
 * The OpenTofu front end's adapter: tfplugin6's Provider service (TofuProvider) over the same
 * resource modules as the Pulumi front ends. It translates the protocol (objects, unknowns, plans,
 * partial state, timeouts, import, write-only secrets, resource identity) and holds no resource
 * logic of its own: check names bad input, diff says what updates, redeploys or replaces, and the
 * modules do the waits, adoption and retries. The settings, the client and the running calls are the shared front-end base's
 * (frontend/).
 */
import { STATE_VERSION_KEY, fromState } from "../core/state.ts";
import {
  PartialStateError,
  type CheckFailure,
  type Context,
  type Props,
  type ResourceModule,
} from "../core/types.ts";
import { UNKNOWN } from "../core/unknowns.ts";
import { cachedImport } from "../frontend/compile-cache.ts";
import type { CallInfo } from "../frontend/grpc-server.ts";
import { Session } from "../frontend/session.ts";
import { ACTIONS, DEFINITIONS, LISTS, RESOURCES } from "../registry.ts";
import { FUNCTIONS, checkFunctionArgs } from "../resources/functions/controller.ts";
import { errorDiag, hclPath, hclWords, messageOf, warningDiag, type Diagnostic } from "./diagnostics.ts";
import {
  identityData,
  identityOf,
  identityProblem,
  identitySchemas,
  upgradeIdentity,
  type IdentityData,
} from "./identity.ts";
import { TofuActions } from "./action.ts";
import { configOf } from "./generate-config.ts";
import { TofuLists, tfList } from "./list.ts";
import { UNKNOWN_VALUE, type TfObject } from "./msgpack.ts";
import { isInput, planChange } from "./plan.ts";
import { providerSettings, validateProviderBlock } from "./provider-config.ts";
import { SERVER_CAPABILITIES, providerSchemaMessage } from "./schema-message.ts";
import {
  dataSourcesOf,
  resourcesOf,
  type PackageSchema,
  type TfAttribute,
  type TfResource,
} from "./tf-schema.ts";
import { checkTimeouts, timeoutMs, timeoutsOf, type TimeoutKey } from "./timeouts.ts";
import { appliedState, diffProps, keepWritten, priorProps, stateOf } from "./state.ts";
import {
  decodeValue,
  encodeValue,
  jsonFailures,
  sameValue,
  toCore,
  toTf,
  type DynamicValue,
} from "./values.ts";
import { keepTwins, mentionTwins, withSecrets, withoutSecrets, writeOnlyFailures } from "./write-only.ts";

type Req = Record<string, unknown> & { type_name?: string };

/** Whether the client keeps write-only values out of state (ClientCapabilities, OpenTofu/Terraform 1.11+). */
const writeOnlyAllowed = (req: Req) =>
  !!(req.client_capabilities as { write_only_attributes_allowed?: boolean } | null | undefined)
    ?.write_only_attributes_allowed;

export class TofuProvider {
  readonly #resources: Map<string, TfResource>;
  readonly #dataSources: Map<string, TfResource>;
  readonly #names: Set<string>;
  /** The HTTP client is loaded by the first call that needs the service (frontend/session.ts). */
  readonly #session = new Session(
    async () => (await cachedImport(import("../../client/index.ts"))).CwsClient,
    'the endpoint of the provider "cws" block (or CWS_BASE_URL)',
  );
  /** Progress lines; OpenTofu keeps a plugin's stderr in its log (TF_LOG). */
  readonly #log: (line: string) => void;
  /** The configured org: the `org` of every resource identity. */
  #org: string | undefined;
  /** Actions (Terraform 1.14+): action.ts adapts the core's action definitions. */
  readonly #actions = new TofuActions(Object.values(ACTIONS), (label, work) =>
    this.#withContext(label, undefined, work),
  );

  /** List resources (Terraform 1.14+): list.ts adapts the core's list definitions. */
  readonly #lists: TofuLists;

  constructor(schema: PackageSchema, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
    this.#resources = new Map(resourcesOf(schema).map((r) => [r.typeName, r]));
    this.#lists = new TofuLists(
      [...this.#resources.values()].flatMap((r) =>
        LISTS[r.coreName] ? [tfList(r, RESOURCES[r.coreName]!, LISTS[r.coreName]!)] : [],
      ),
      (label, work) => this.#withContext(label, undefined, work),
      () => this.#org,
    );
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

  /**
   * Runs `work` with the client, the call's timeout and a log of its own (progress and a wait's
   * status are log lines); what the user should read after the run goes to `notices`, which the
   * apply answers as warnings.
   */
  #withContext<T>(
    label: string,
    timeout: number | undefined,
    work: (ctx: Context) => Promise<T>,
    notices?: string[],
  ): Promise<T> {
    const log = (message: string) => this.#log(`[INFO] ${label}: ${message}`);
    return this.#session.run(log, timeout, work, {
      status: log,
      notice: (message) => {
        log(message);
        notices?.push(hclWords(message, this.#names));
      },
    });
  }

  // --- provider ----------------------------------------------------------------------------------

  getMetadata(): unknown {
    return {
      server_capabilities: SERVER_CAPABILITIES,
      resources: [...this.#resources.keys()].map((type_name) => ({ type_name })),
      data_sources: [...this.#dataSources.keys()].map((type_name) => ({ type_name })),
      functions: [],
      ephemeral_resources: [],
      actions: this.#actions.metadata(),
      list_resources: this.#lists.metadata(),
    };
  }

  getProviderSchema(): unknown {
    return {
      ...providerSchemaMessage([...this.#resources.values()], [...this.#dataSources.values()]),
      action_schemas: this.#actions.schemas(),
      list_resource_schemas: this.#lists.schemas(),
    };
  }

  validateProviderConfig(req: Req): unknown {
    return { diagnostics: validateProviderBlock(decodeValue(req.config as DynamicValue)) };
  }

  configureProvider(req: Req): unknown {
    const { settings, diagnostics } = providerSettings(decodeValue(req.config as DynamicValue));
    this.#session.configure(settings ?? new Error(diagnostics.map((d) => d.detail).join("; ")));
    this.#org = settings?.org;
    return { diagnostics };
  }

  stopProvider(): unknown {
    this.#session.cancel();
    return {};
  }

  getFunctions(): unknown {
    return { functions: {}, diagnostics: [] };
  }

  getResourceIdentitySchemas(): unknown {
    return { identity_schemas: identitySchemas([...this.#resources.values()]), diagnostics: [] };
  }

  upgradeResourceIdentity(req: Req): unknown {
    this.#resource(req.type_name);
    return upgradeIdentity(
      req.raw_identity as { json?: Buffer } | undefined,
      Number(req.version ?? 0),
      this.#org,
    );
  }

  /** The identity of the object `id`: the configured org and its uid. */
  #identity(id: string): IdentityData {
    return identityData(this.#org, id);
  }

  // --- resources ---------------------------------------------------------------------------------

  validateResourceConfig(req: Req): unknown {
    const { r, m } = this.#resource(req.type_name);
    const config = decodeValue(req.config as DynamicValue);
    const { diagnostics } = this.#checkConfig(r, m, {}, config, writeOnlyAllowed(req));
    return { diagnostics };
  }

  /** The configuration checked: its failures as diagnostics, and the inputs the core's check gives. */
  #checkConfig(r: TfResource, m: ResourceModule, olds: Props, config: TfObject | null, writeOnly: boolean) {
    const failures: CheckFailure[] = [
      ...checkTimeouts(config?.timeouts ?? null),
      ...jsonFailures(r, config),
      ...writeOnlyFailures(r, config, writeOnly),
    ];
    const news = toCore(r.attributes.filter(isInput), config && withSecrets(r, config));
    const checked = m.check(olds, news);
    return {
      diagnostics: this.#failures([...failures, ...mentionTwins(r, checked.failures)], "Invalid value"),
      inputs: checked.inputs,
    };
  }

  upgradeResourceState(req: Req): unknown {
    const { r } = this.#resource(req.type_name);
    const raw = req.raw_state as { json?: Buffer } | undefined;
    const prior = raw?.json?.length ? (JSON.parse(raw.json.toString("utf8")) as TfObject) : {};
    const props = fromState(r.coreName, {
      ...priorProps(r, prior),
      [STATE_VERSION_KEY]: Number(req.version ?? 0),
    });
    const state: TfObject = {
      ...keepTwins(r, toTf(r.attributes, props), prior),
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
      (ctx) => m.read(ctx, id, priorProps(r, state)),
    );
    if (!read) return { new_state: encodeValue(null), diagnostics: [] }; // gone: dropped from state
    const fresh = keepTwins(r, keepWritten(r, state, stateOf(r, read.id, read.inputs, read.outputs)), state);
    fresh.timeouts = timeoutsOf(state);
    return { new_state: encodeValue(fresh), new_identity: this.#identity(read.id), diagnostics: [] };
  }

  planResourceChange(req: Req): unknown {
    const { r, m } = this.#resource(req.type_name);
    const prior = decodeValue(req.prior_state as DynamicValue);
    const proposed = decodeValue(req.proposed_new_state as DynamicValue);
    const config = decodeValue(req.config as DynamicValue);
    if (!proposed || !config) return { planned_state: encodeValue(null), diagnostics: [] };
    const olds = prior ? priorProps(r, prior) : {};
    const checked = this.#checkConfig(r, m, olds, config, writeOnlyAllowed(req));
    if (checked.diagnostics.length) return { diagnostics: checked.diagnostics };
    if (!prior) {
      // A new object's identity is known after apply: none is planned.
      const planned: TfObject = withoutSecrets(r, proposed);
      for (const a of r.attributes) if (a.computed) planned[a.name] = UNKNOWN_VALUE;
      return { planned_state: encodeValue(planned), diagnostics: [] };
    }
    const d = m.diff(String(prior.id), diffProps(r, prior, config), checked.inputs);
    if (d.changes) this.#actions.noteChange(String(prior.id));
    const change = planChange(r, d, prior, proposed, config);
    return {
      planned_state: encodeValue(change.planned),
      requires_replace: change.requiresReplace.map((name) => ({ steps: [{ attribute_name: name }] })),
      planned_identity: this.#identity(String(prior.id)),
      diagnostics: change.diagnostics,
    };
  }

  async applyResourceChange(req: Req): Promise<unknown> {
    const { r, m } = this.#resource(req.type_name);
    const prior = decodeValue(req.prior_state as DynamicValue);
    const planned = decodeValue(req.planned_state as DynamicValue);
    const config = decodeValue(req.config as DynamicValue);
    if (!planned) {
      if (!prior) return { new_state: encodeValue(null), diagnostics: [] };
      const id = String(prior.id);
      try {
        await this.#withContext(`${r.typeName} ${id}`, timeoutMs(prior.timeouts ?? null, "delete"), (ctx) =>
          m.delete(ctx, id, priorProps(r, prior)),
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
    const olds = prior ? priorProps(r, prior) : {};
    // Write-only values come from the configuration: the plan holds none.
    const news = m.check(olds, toCore(r.attributes.filter(isInput), withSecrets(r, planned, config))).inputs;
    const label = prior ? `${r.typeName} ${String(prior.id)}` : `${r.typeName} ${String(planned.name ?? "")}`;
    const merge = (id: string, outputs: Props) => appliedState(r, planned, id, outputs, config);
    const notices: string[] = [];
    const done = (id: string, outputs: Props) => ({
      new_state: encodeValue(merge(id, outputs)),
      new_identity: this.#identity(id),
      diagnostics: notices.map((n) => warningDiag(`${label}: ${n}`)),
    });
    try {
      if (!prior) {
        const res = await this.#withContext(
          label,
          timeoutMs(planned.timeouts ?? null, op),
          (ctx) => m.create(ctx, news),
          notices,
        );
        return done(res.id, res.outputs);
      }
      const id = String(prior.id);
      const inputsChanged = r.attributes.some(
        (a) => isInput(a) && !sameValue(planned[a.name], prior[a.name] ?? null),
      );
      if (!inputsChanged) return done(id, olds);
      const outputs = await this.#withContext(label, timeoutMs(planned.timeouts ?? null, op), (ctx) =>
        m.update(ctx, id, diffProps(r, prior, planned), news),
      );
      return done(id, outputs);
    } catch (e) {
      const summary = `${prior ? "updating" : "creating"} ${label} failed`;
      if (e instanceof PartialStateError) {
        // It exists but did not reach the wanted state: kept (OpenTofu taints a failed create).
        const untaint = prior
          ? ""
          : "\n\nOpenTofu marks it tainted, so the next apply would replace it; `tofu untaint` this resource to keep it, and the next apply finishes it in place.";
        return {
          new_state: encodeValue(merge(e.id, { ...olds, ...e.properties })),
          new_identity: this.#identity(e.id),
          diagnostics: [errorDiag(summary, `${messageOf(e)}${untaint}`)],
        };
      }
      return { new_state: encodeValue(prior), diagnostics: [errorDiag(summary, messageOf(e))] };
    }
  }

  async importResourceState(req: Req): Promise<unknown> {
    const { r, m } = this.#resource(req.type_name);
    // By id (`tofu import`, `import { id = ... }`) or by identity (`import { identity = {...} }`).
    const identity = identityOf(req.identity as IdentityData | null);
    if (identity) {
      const problems = identityProblem(r, identity, this.#org);
      if (problems.length) return { imported_resources: [], diagnostics: problems };
    }
    const id = identity?.uid ?? String(req.id ?? "");
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
        {
          type_name: r.typeName,
          state: encodeValue(keepTwins(r, stateOf(r, read.id, read.inputs, read.outputs), null)),
          identity: this.#identity(read.id),
        },
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
    const allKnown = Object.keys(known).length === Object.keys(values).length;
    return { diagnostics: this.#failures(checkFunctionArgs(fn, known, allKnown), "Invalid value") };
  }

  async readDataSource(req: Req): Promise<unknown> {
    const { r, fn, args } = this.#dataSource(req.type_name);
    const config = decodeValue(req.config as DynamicValue);
    const values = toCore(args, config);
    const failures = checkFunctionArgs(fn, values);
    if (failures.length) return { diagnostics: this.#failures(failures, "Invalid value") };
    const result = await fn.run(await this.#session.client(), values);
    return { state: encodeValue(toTf(r.attributes, { ...values, ...result })), diagnostics: [] };
  }

  // --- actions (Terraform 1.14+) -----------------------------------------------------------------

  validateActionConfig(req: Req): unknown {
    return this.#actions.validate(req);
  }

  planAction(req: Req): Promise<unknown> {
    return this.#actions.plan(req);
  }

  invokeAction(req: Req, call?: CallInfo): AsyncGenerator<unknown> {
    return this.#actions.invoke(req, call);
  }

  // --- list resources and generated configuration (Terraform 1.14+) -------------------------------

  validateListResourceConfig(req: Req): unknown {
    return this.#lists.validate(req);
  }

  listResource(req: Req, call?: CallInfo): AsyncGenerator<unknown> {
    return this.#lists.list(req, call);
  }

  generateResourceConfig(req: Req): unknown {
    const { r } = this.#resource(req.type_name);
    const config = configOf(r, DEFINITIONS[r.coreName]!, decodeValue(req.state as DynamicValue));
    return { config: encodeValue(config), diagnostics: [] };
  }
}
