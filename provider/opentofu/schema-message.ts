/**
 * The tfplugin6 Schema messages (tf-schema.ts): of a provider block, resource or data source, and
 * the GetProviderSchema answer that holds them all.
 */
import { STATE_VERSION } from "../core/state.ts";
import { PROVIDER_ATTRIBUTES, TIMEOUT_KEYS, type TfAttribute, type TfResource } from "./tf-schema.ts";

/**
 * What the provider can do beyond the basics. `get_provider_schema_optional`: a process of the
 * provider serves every call without having been asked for its schema (nothing is set up by
 * GetProviderSchema), so OpenTofu, which keeps the schema of the first process for the rest of the
 * command, does not ask each later process for it again. `generate_resource_config`: Terraform
 * (1.14+) asks GenerateResourceConfig for the configuration it generates (generate-config.ts).
 */
export const SERVER_CAPABILITIES = {
  plan_destroy: false,
  get_provider_schema_optional: true,
  move_resource_state: false,
  generate_resource_config: true,
};

function attributeMessage(a: TfAttribute): Record<string, unknown> {
  return {
    name: a.name,
    ...(a.nested
      ? { nested_type: { attributes: a.nested.attributes.map(attributeMessage), nesting: a.nested.nesting } }
      : { type: Buffer.from(JSON.stringify(a.type)) }),
    description: a.description ?? "",
    description_kind: "MARKDOWN",
    required: !!a.required,
    optional: !!a.optional,
    computed: !!a.computed,
    sensitive: !!a.sensitive,
    write_only: !!a.writeOnly,
  };
}

const TIMEOUTS_BLOCK = {
  type_name: "timeouts",
  nesting: "SINGLE",
  block: {
    attributes: TIMEOUT_KEYS.map((k) => ({
      name: k,
      type: Buffer.from(JSON.stringify("string")),
      optional: true,
      description: `How long ${k} may take, e.g. "30m" (waits and retries stop then).`,
      description_kind: "PLAIN",
    })),
    description: "Timeouts of the operations on this resource.",
  },
};

export function schemaMessage(
  attributes: TfAttribute[],
  description: string,
  version: number,
  timeouts: boolean,
) {
  return {
    version,
    block: {
      version,
      attributes: attributes.map(attributeMessage),
      block_types: timeouts ? [TIMEOUTS_BLOCK] : [],
      description,
      description_kind: "MARKDOWN",
    },
  };
}

/** The GetProviderSchema answer: the provider block, the resources (state version, timeouts) and the data sources. */
export function providerSchemaMessage(resources: TfResource[], dataSources: TfResource[]) {
  const schemas = (list: TfResource[], timeouts: boolean) =>
    Object.fromEntries(
      list.map((r) => [
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
    resource_schemas: schemas(resources, true),
    data_source_schemas: schemas(dataSources, false),
    server_capabilities: SERVER_CAPABILITIES,
    functions: {},
    ephemeral_resource_schemas: {},
    diagnostics: [],
  };
}
