/**
 * Native resource classes: the same names, inputs and outputs as `pulumi-cws/sdk`, registered
 * as `cws:index:<Type>` with the `pulumi-resource-cws` plugin instead of a dynamic provider.
 * The input and output types and the property names are those of the dynamic classes, generated
 * from the same definitions.
 */
import * as pulumi from "@pulumi/pulumi";
import { registration } from "../resource.ts";
import { quietStacks, restoreStacks } from "../stacks.ts";

/** A class with the constructor and static `get` of a `pulumi-cws/sdk` resource class. */
export interface ResourceClass<Args, Instance> {
  new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): Instance;
  get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Instance;
}

/** The native twin of a dynamic resource class `C` (same constructor, outputs and `get`). */
export function nativeResource<C extends ResourceClass<never, unknown>>(
  type: string,
  names: { properties: readonly string[]; secrets: readonly string[] },
): C {
  const token = `cws:index:${type}`;
  const { properties, secrets } = names;

  class NativeResource extends pulumi.CustomResource {
    constructor(name: string, args: object | undefined, opts?: pulumi.CustomResourceOptions) {
      const r = registration(properties, secrets, args, opts);
      const limit = quietStacks();
      try {
        super(token, name, r.props, r.opts);
      } catch (e) {
        restoreStacks(limit, e);
        throw e;
      } finally {
        restoreStacks(limit);
      }
    }

    static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions) {
      return new NativeResource(name, undefined, { ...opts, id: uid });
    }
  }
  Object.defineProperty(NativeResource, "name", { value: type });
  return NativeResource as unknown as C;
}
