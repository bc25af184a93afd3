/** What every cws resource class shares: its type token, output keys and secret inputs. */
import * as pulumi from "@pulumi/pulumi";
import { durationMs } from "./duration.ts";
import { providerModule } from "./provider.ts";
import { quietStacks, restoreStacks } from "./stacks.ts";

/** Type tokens are `pulumi-nodejs:dynamic/cws:<Type>`. */
export const MODULE = "cws";

/**
 * What a resource class (dynamic, or native in sdk/native/) registers: every property declared
 * (so lookups by id fill them), the program's inputs with the secret ones wrapped as secrets, and
 * those kept secret in the outputs too.
 */
export function registration(
  properties: readonly string[],
  secrets: readonly string[],
  args: object | undefined,
  opts: pulumi.CustomResourceOptions | undefined,
): { props: Record<string, unknown>; opts: pulumi.CustomResourceOptions } {
  const props: Record<string, unknown> = Object.fromEntries(properties.map((k) => [k, undefined]));
  for (const [k, v] of Object.entries(args ?? {}))
    props[k] = secrets.includes(k) && v !== undefined ? pulumi.secret(v) : v;
  const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...secrets];
  return { props, opts: { ...opts, additionalSecretOutputs } };
}

/**
 * What a dynamic provider cannot get from the engine, handed to it by the class: the `import`
 * option becomes adoption (`adoptUid`; the engine's import would read without the provider), and
 * customTimeouts travel as the `__timeouts` input (ms per operation), which the provider takes
 * off before the resource sees its inputs (like `__urn`, below).
 */
export function dynamicOptions(
  type: string,
  properties: readonly string[],
  args: object | undefined,
  opts: pulumi.CustomResourceOptions | undefined,
): { args: object | undefined; opts: pulumi.CustomResourceOptions | undefined } {
  if (!opts || !args) return { args, opts };
  let out: Record<string, unknown> = { ...args };
  const { import: importId, customTimeouts, ...rest } = opts;
  if (importId !== undefined) {
    if (!properties.includes("adoptUid"))
      throw new Error(
        `${type}: the import option needs the native plugin (pulumi-cws/sdk/native); the dynamic provider cannot import a ${type}. Use ${type}.get(name, uid) to read it`,
      );
    out = { ...out, adoptUid: importId };
  }
  const timeouts = Object.fromEntries(
    (["create", "update", "delete"] as const)
      .map((k) => [k, durationMs(customTimeouts?.[k])] as const)
      .filter(([, ms]) => ms !== undefined),
  );
  if (Object.keys(timeouts).length) out.__timeouts = timeouts;
  return { args: out, opts: { ...rest, ...(customTimeouts ? { customTimeouts } : {}) } };
}

/**
 * The resource's URN as an input (`__urn`): the engine tells a dynamic provider nothing about
 * the resource it acts for, and the provider needs it to say what a change does on the
 * resource's own line at preview.
 */
export function urnInput(type: string, name: string, opts: pulumi.CustomResourceOptions | undefined) {
  return pulumi.createUrn(name, `pulumi-nodejs:dynamic/${MODULE}:${type}`, opts?.parent);
}

/**
 * Base class: a dynamic resource (type `pulumi-nodejs:dynamic/cws:<Type>`, run by the engine's
 * Node.js dynamic-provider process) whose `__provider` is the one-line module of provider.ts.
 * It declares every property (so lookups by id fill them) and marks secret inputs as secrets in
 * state.
 */
export abstract class CwsResource extends pulumi.CustomResource {
  constructor(
    type: string,
    name: string,
    args: object | undefined,
    properties: readonly string[],
    secrets: readonly string[],
    opts?: pulumi.CustomResourceOptions,
  ) {
    const options = dynamicOptions(type, properties, args, opts);
    // The uid is the resource's id, not a property.
    const r = registration(
      properties.filter((k) => k !== "uid"),
      secrets,
      options.args,
      options.opts,
    );
    r.props.__provider = providerModule(type);
    if (args) r.props.__urn = urnInput(type, name, opts);
    const limit = quietStacks();
    try {
      super(`pulumi-nodejs:dynamic/${MODULE}:${type}`, name, r.props, r.opts);
    } catch (e) {
      restoreStacks(limit, e);
      throw e;
    } finally {
      restoreStacks(limit);
    }
    // The uid is the resource's id: known at preview while the object is only updated (so a
    // resource referring to it does not show a replacement), unknown when it is (re)created.
    Object.defineProperty(this, "uid", { value: this.id, enumerable: true });
  }
}
