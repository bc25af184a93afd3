/** What every cws resource class shares: its type token, output keys and secret inputs. */
import * as pulumi from "@pulumi/pulumi";
import { providerModule } from "./provider.ts";

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
 * Turns off stack traces for the synchronous part of a resource's registration and returns the
 * limit to restore. @pulumi/pulumi gives each of a resource's properties four promises, and
 * formats a stack trace for each (kept only for its report of promises left pending at exit,
 * which also names the resource and property): for a resource with 30 properties that is most of
 * the program's CPU per resource. The resource's source position and stack in state are taken
 * with their own limit and are unchanged.
 */
function quietStacks(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
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
    const props: Record<string, unknown> = Object.fromEntries(
      properties.filter((k) => k !== "uid").map((k) => [k, undefined]),
    );
    for (const [k, v] of Object.entries(args ?? {}))
      props[k] = secrets.includes(k) && v !== undefined ? pulumi.secret(v) : v;
    const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...secrets];
    props.__provider = providerModule(type);
    const limit = quietStacks();
    try {
      super(`pulumi-nodejs:dynamic/${MODULE}:${type}`, name, props, { ...opts, additionalSecretOutputs });
    } catch (e) {
      Error.stackTraceLimit = limit;
      // Made while stacks were off: give it the stack of this call, which names the program's line.
      if (e instanceof Error) Error.captureStackTrace(e);
      throw e;
    } finally {
      Error.stackTraceLimit = limit;
    }
    // The uid is the resource's id: known at preview while the object is only updated (so a
    // resource referring to it does not show a replacement), unknown when it is (re)created.
    Object.defineProperty(this, "uid", { value: this.id, enumerable: true });
  }
}
