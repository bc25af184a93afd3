/**
 * The OpenTofu schema of the provider, derived from the package schema (schema.json, the
 * generated contract the Pulumi front ends serve): every resource and lookup under its HCL name
 * (`cws_workload`, `cws_regions`), attributes in snake_case with their types and descriptions,
 * secrets as `sensitive`, the inputs a program must give as `required`, outputs as `computed`,
 * plus `id` and a `timeouts` block on every resource. Objects inside inputs are nested
 * attributes (`ports = [{ port = 8080 }]`); a free-form document (a template's manifest) is a
 * JSON string (`jsonencode(...)`). A secret sub-field the service never returns (a password) also
 * has a write-only twin beside it (`password_wo` with `password_wo_version`; write-only.ts says
 * how they are planned and applied).
 */
import { camelToSnake, snakeToCamel } from "../core/wire.ts";
import { SETTINGS, SETTING_KEYS, type SettingKey } from "../frontend/settings.ts";
import { DEFINITIONS } from "../registry.ts";

/** An OpenTofu value type in its JSON form ("string", ["list", "string"], ["object", {...}]). */
export type TfType =
  "string" | "number" | "bool" | ["list", TfType] | ["map", TfType] | ["object", Record<string, TfType>];

export interface TfAttribute {
  /** HCL name (snake_case). */
  name: string;
  /** Property name in the provider core (camelCase). */
  key: string;
  type: TfType;
  /** Objects and lists of objects in inputs: nested attributes. */
  nested?: { nesting: "SINGLE" | "LIST"; attributes: TfAttribute[] };
  /** A JSON document held as a string. */
  json?: boolean;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  /** Taken from the configuration only: never in a plan or in state (OpenTofu/Terraform 1.11+). */
  writeOnly?: boolean;
  description?: string;
}

export interface TfResource {
  /** `cws_workload`. */
  typeName: string;
  /** The core's name for it: a resource type ("Workload") or a lookup ("getRegions"). */
  coreName: string;
  description: string;
  attributes: TfAttribute[];
  /** The value type of the whole object (attributes, plus the timeouts block on resources). */
  type: ["object", Record<string, TfType>];
  /** The write-only twins of its secret sub-fields (resources only). */
  writeOnly: WriteOnlyTwin[];
}

export const PROVIDER_PREFIX = "cws";
export const TIMEOUT_KEYS = ["create", "read", "update", "delete"] as const;
const TIMEOUTS_TYPE: TfType = ["object", Object.fromEntries(TIMEOUT_KEYS.map((k) => [k, "string"]))];

interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  secret?: boolean;
}
interface ObjectSpec {
  properties: Record<string, PropertySpec>;
  required?: string[];
}
export interface PackageSchema {
  config: { variables: Record<string, PropertySpec> };
  types: Record<string, ObjectSpec>;
  resources: Record<
    string,
    {
      description: string;
      properties: Record<string, PropertySpec>;
      inputProperties: Record<string, PropertySpec>;
      requiredInputs?: string[];
    }
  >;
  functions: Record<
    string,
    {
      description: string;
      inputs: { properties: Record<string, PropertySpec> };
      outputs: { properties: Record<string, PropertySpec> };
    }
  >;
}

const PRIMITIVE: Record<string, TfType> = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "bool",
};

function refType(schema: PackageSchema, ref: string): ObjectSpec {
  const t = schema.types[ref.replace(/^#\/types\//, "")];
  if (!t) throw new Error(`schema.json: unknown type ${ref}`);
  return t;
}

const isAny = (p: PropertySpec | undefined) => !!p?.$ref?.startsWith("pulumi.json#/Any");

/** The value type of a property (outputs, and the leaves of inputs). */
function typeOf(schema: PackageSchema, p: PropertySpec): TfType {
  if (p.$ref) {
    const t = refType(schema, p.$ref);
    return [
      "object",
      Object.fromEntries(Object.entries(t.properties).map(([k, v]) => [camelToSnake(k), typeOf(schema, v)])),
    ];
  }
  if (p.type === "array") return ["list", typeOf(schema, p.items ?? { type: "string" })];
  if (p.type === "object") {
    if (isAny(p.additionalProperties) || !p.additionalProperties) return "string";
    return ["map", typeOf(schema, p.additionalProperties)];
  }
  const t = PRIMITIVE[p.type ?? ""];
  if (!t) throw new Error(`schema.json: no OpenTofu type for ${JSON.stringify(p)}`);
  return t;
}

/** An input property as an attribute: objects (and lists of objects) become nested attributes. */
function inputAttribute(schema: PackageSchema, key: string, p: PropertySpec, required: boolean): TfAttribute {
  const base: TfAttribute = {
    name: camelToSnake(key),
    key,
    type: typeOf(schema, p),
    ...(required ? { required: true } : { optional: true }),
    ...(p.secret ? { sensitive: true } : {}),
    ...(p.description ? { description: p.description } : {}),
  };
  const objectRef = p.$ref ?? (p.type === "array" ? p.items?.$ref : undefined);
  if (objectRef) {
    const t = refType(schema, objectRef);
    const attributes = Object.entries(t.properties).map(([k, v]) =>
      inputAttribute(schema, k, v, (t.required ?? []).includes(k)),
    );
    return { ...base, nested: { nesting: p.$ref ? "SINGLE" : "LIST", attributes } };
  }
  if (p.type === "object" && (isAny(p.additionalProperties) || !p.additionalProperties)) {
    return {
      ...base,
      json: true,
      description: `${p.description ? `${p.description} ` : ""}A JSON document (use jsonencode).`,
    };
  }
  return base;
}

function outputAttribute(schema: PackageSchema, key: string, p: PropertySpec): TfAttribute {
  return {
    name: camelToSnake(key),
    key,
    type: typeOf(schema, p),
    computed: true,
    ...(p.secret ? { sensitive: true } : {}),
    ...(p.description ? { description: p.description } : {}),
  };
}

const objectType = (attributes: TfAttribute[], extra: Record<string, TfType> = {}): TfResource["type"] => [
  "object",
  { ...Object.fromEntries(attributes.map((a) => [a.name, a.type])), ...extra },
];

const coreName = (token: string) => token.split(":")[2] ?? token;

/** A secret sub-field with its write-only twin. */
export interface WriteOnlyTwin {
  /** The nested attribute that holds it (`registry_auth`) and its core key (`registryAuth`). */
  attribute: string;
  key: string;
  /** The stored sub-attribute (`password`): kept in state. */
  stored: string;
  /** `password_wo`: write-only. */
  wo: string;
  /** `password_wo_version`: kept in state; a change sends the write-only value. */
  version: string;
}

/**
 * Per resource (core name), the inputs with sub-fields the service never returns that are
 * secrets: `{ Workload: { registryAuth: ["password"], vmConfig: ["password"] } }`.
 */
export const WRITE_ONLY_INPUTS: Record<string, Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(DEFINITIONS).map(([name, def]) => [
    name,
    Object.fromEntries(
      Object.entries(def.inputs)
        .filter(([, p]) => p.secret && p.writeOnly?.length)
        .map(([k, p]) => [k, p.writeOnly!]),
    ),
  ]),
);

/** Which OpenTofu and Terraform releases take write-only attributes (the docs say the same). */
export const WRITE_ONLY_SINCE = "OpenTofu 1.11 or Terraform 1.11";

/**
 * A nested attribute with each of `fields` given its twins: the stored sub-attribute becomes
 * optional (one of the two forms is required, write-only.ts checks), `<field>_wo` and
 * `<field>_wo_version` are added beside it. The secret is the stored sub-attribute and its
 * write-only twin: they are sensitive, the rest of the object (a registry's server and user
 * name) is not, so that plans show it and a generated configuration
 * (`-generate-config-out`, which writes a sensitive attribute as `null # sensitive`) keeps it.
 */
export function twinAttributes(
  a: TfAttribute,
  fields: readonly string[],
): { attribute: TfAttribute; twins: WriteOnlyTwin[] } {
  const nested = a.nested!;
  const attributes = [...nested.attributes];
  const twins: WriteOnlyTwin[] = [];
  for (const field of fields) {
    const i = attributes.findIndex((x) => x.key === field);
    if (i < 0) continue;
    const stored = attributes[i]!;
    attributes[i] = { ...stored, required: undefined, optional: true, sensitive: true };
    const wo = `${stored.name}_wo`;
    const version = `${stored.name}_wo_version`;
    attributes.push(
      {
        name: wo,
        key: snakeToCamel(wo),
        type: "string",
        optional: true,
        sensitive: true,
        writeOnly: true,
        description: `\`${stored.name}\` as a write-only value (${WRITE_ONLY_SINCE} or later): sent to the service, never kept in state or in a plan. Set \`${version}\` with it, instead of \`${stored.name}\`.`,
      },
      {
        name: version,
        key: snakeToCamel(version),
        type: "number",
        optional: true,
        description: `Goes with \`${wo}\`: change it (1, 2, ...) to send a new \`${wo}\`, which is applied as a change of \`${a.name}\` is. The value itself is not a secret and is kept in state.`,
      },
    );
    twins.push({ attribute: a.name, key: a.key, stored: stored.name, wo, version });
  }
  const type: TfAttribute["type"] = ["object", Object.fromEntries(attributes.map((x) => [x.name, x.type]))];
  const { sensitive: _whole, ...rest } = a;
  return { attribute: { ...rest, type, nested: { ...nested, attributes } }, twins };
}

/** `Workload` → `cws_workload`; `getSandboxTemplates` → `cws_sandbox_templates`. */
export const tfName = (name: string) =>
  `${PROVIDER_PREFIX}_${camelToSnake(name.replace(/^get/, "")).replace(/^_/, "")}`;

export function resourcesOf(schema: PackageSchema): TfResource[] {
  return Object.entries(schema.resources).map(([token, r]) => {
    // `name` is optional in the package schema because Pulumi auto-names it (core/naming.ts);
    // HCL has no auto-naming, so it stays required here, as OpenTofu users expect.
    const required = [...(r.requiredInputs ?? []), ...("name" in r.inputProperties ? ["name"] : [])];
    const secretFields = WRITE_ONLY_INPUTS[coreName(token)] ?? {};
    const twins: WriteOnlyTwin[] = [];
    const inputs = Object.entries(r.inputProperties).map(([k, p]) => {
      const a = inputAttribute(schema, k, p, required.includes(k));
      const fields = secretFields[k];
      if (!fields || a.nested?.nesting !== "SINGLE") return a;
      const withTwins = twinAttributes(a, fields);
      twins.push(...withTwins.twins);
      return withTwins.attribute;
    });
    const outputs = Object.entries(r.properties)
      .filter(([k]) => !(k in r.inputProperties))
      .map(([k, p]) => outputAttribute(schema, k, p));
    const id: TfAttribute = {
      name: "id",
      key: "id",
      type: "string",
      computed: true,
      description: "The service's UID of the object.",
    };
    const attributes = [id, ...inputs, ...outputs];
    return {
      typeName: tfName(coreName(token)),
      coreName: coreName(token),
      description: r.description,
      attributes,
      type: objectType(attributes, { timeouts: TIMEOUTS_TYPE }),
      writeOnly: twins,
    };
  });
}

export function dataSourcesOf(schema: PackageSchema): TfResource[] {
  return Object.entries(schema.functions).map(([token, f]) => {
    // An argument the result also has (getWorkload's uid and name) is one attribute, set or read.
    const returned = (k: string) => k in f.outputs.properties;
    const args = Object.entries(f.inputs.properties).map(([k, p]) => ({
      ...inputAttribute(schema, k, p, false),
      ...(returned(k) ? { computed: true } : {}),
    }));
    const results = Object.entries(f.outputs.properties)
      .filter(([k]) => !(k in f.inputs.properties))
      .map(([k, p]) => outputAttribute(schema, k, p));
    const attributes = [...args, ...results];
    return {
      typeName: tfName(coreName(token)),
      coreName: coreName(token),
      description: f.description,
      attributes,
      type: objectType(attributes),
      writeOnly: [],
    };
  });
}

/** The provider block's attributes: the settings (frontend/settings.ts) under their HCL names. */
export const HCL_SETTING_NAMES: Record<SettingKey, string> = {
  baseUrl: "endpoint",
  org: "org",
  apiToken: "api_token",
  maxRequestsPerSecond: "max_requests_per_second",
  unreachableTimeoutSec: "unreachable_timeout_sec",
};

/** The provider block: where the service is, which org, and the token (falling back to CWS_*). */
export const PROVIDER_ATTRIBUTES: TfAttribute[] = SETTING_KEYS.map((key) => ({
  name: HCL_SETTING_NAMES[key],
  key,
  type: SETTINGS[key].type ?? "string",
  optional: true,
  ...(SETTINGS[key].secret ? { sensitive: true } : {}),
  description: `${SETTINGS[key].description} (falls back to ${SETTINGS[key].env}).`,
}));
