/**
 * The provider object each resource hands to the engine. It is serialized into state (inputs
 * and outputs) and sent with every call the engine makes, so it holds nothing but the type
 * name: its methods load the implementation by package name (`pulumi-cws/provider/dynamic`)
 * inside the engine's provider process. There is one object per type, so the closure
 * serializer, which caches by object, runs once per type and not once per resource.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as pulumi from "@pulumi/pulumi";

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

export function dynamicProvider(type: string): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(type);
  if (!provider) {
    provider = serializable(type);
    providers.set(type, provider);
  }
  return provider;
}

/** Short arrow functions: their source text is what state stores. */
function serializable(type: string): pulumi.dynamic.ResourceProvider {
  const impl = () => require("pulumi-cws/provider/dynamic");
  return {
    configure: async (r) => impl().configure(r.config),
    check: async (o, n) => impl().check(type, o, n),
    diff: async (i, o, n) => impl().diff(type, i, o, n),
    create: async (p) => impl().create(type, p),
    read: async (i, p) => impl().read(type, i, p),
    update: async (i, o, n) => impl().update(type, i, o, n),
    delete: async (i, p) => impl().remove(type, i, p),
  };
}
