/** What every cws resource class shares: its type token, output keys and secret inputs. */
import * as pulumi from "@pulumi/pulumi";
import { providerModule } from "./provider.ts";
import { quietStacks, restoreStacks } from "./stacks.ts";

/** Type tokens are `pulumi-nodejs:dynamic/cws:<Type>`. */
export const MODULE = "cws";

/** Lifecycle inputs common to resources that can adopt an existing object. */
export interface AdoptArgs {
  /**
   * UID of an object that already exists on the service. Instead of creating a new one, create
   * takes it under management and updates it to match the program.
   */
  adoptUid?: pulumi.Input<string>;
}

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
    // The uid is the resource's id, not a property.
    const r = registration(
      properties.filter((k) => k !== "uid"),
      secrets,
      args,
      opts,
    );
    r.props.__provider = providerModule(type);
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
