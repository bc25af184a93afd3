/** The tfplugin6 Schema message of a provider block, resource or data source (tf-schema.ts). */
import { TIMEOUT_KEYS, type TfAttribute } from "./tf-schema.ts";

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
