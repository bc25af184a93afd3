/**
 * The provider each resource hands to the engine: the `__provider` input of a dynamic resource,
 * the text of a CommonJS module whose `handler()` the engine's dynamic-provider process calls
 * (after `require-from-string`) to get the provider object. Pulumi's closure serializer would
 * turn a provider object into about 2.3 KB of wrapped closures (one per method); the text is
 * stored in state twice per resource (inputs and outputs) and sent with every call, so the
 * engine's work on state grows with it. This module is the one line it takes: load the
 * implementation by package name (`pulumi-cws/provider/dynamic`, from the program's own
 * node_modules) and take the provider of the type. No code and no configuration is copied into
 * state; the text is the same for every resource of a type.
 */
export function providerModule(type: string): string {
  return `exports.handler=()=>require("pulumi-cws/provider/dynamic").provider(${JSON.stringify(type)})`;
}
