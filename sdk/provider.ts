/**
 * The provider object each resource hands to the engine. It is serialized into state, so it
 * holds nothing but the type name: its methods load the implementation by package name
 * (`pulumi-cws/provider/dynamic`) inside the engine's provider process.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as pulumi from "@pulumi/pulumi";

export function dynamicProvider(type: string): pulumi.dynamic.ResourceProvider {
  const impl = () => require("pulumi-cws/provider/dynamic");
  return {
    async configure(req) {
      impl().configure(req.config);
    },
    async check(olds, news) {
      return impl().check(type, olds, news);
    },
    async diff(id, olds, news) {
      return impl().diff(type, id, olds, news);
    },
    async create(inputs) {
      return impl().create(type, inputs);
    },
    async read(id, props) {
      return impl().read(type, id, props);
    },
    async update(id, olds, news) {
      return impl().update(type, id, olds, news);
    },
    async delete(id, props) {
      await impl().remove(type, id, props);
    },
  };
}
