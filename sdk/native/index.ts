/**
 * `pulumi-cws/sdk/native`: the resource classes of `pulumi-cws/sdk` on the native plugin
 * (`pulumi-resource-cws` on PATH), plus the explicit provider and the lookups.
 */
export * from "./resources.ts";
export { Provider, type ProviderArgs } from "./provider.ts";
export * from "./functions.ts";
