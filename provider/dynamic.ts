/**
 * What the `__provider` stored in state loads by name (`pulumi-cws/provider/dynamic`) inside the
 * engine's provider process: `provider(type)` is the provider object of a type (sdk/provider.ts
 * writes the one line that asks for it). The engine starts that process for every operation, so
 * loading is paid each time: this entry loads the adapter (dynamic/adapter.ts) and the resource
 * modules through Node's compile cache (dynamic/load.ts) on the first call; in the built package, from
 * the bundle scripts/build.ts makes of them (dist/dynamic/).
 *
 * The functions below `provider` are what states written by earlier versions call (their
 * `__provider` is a serialized closure calling them); they stay so that such stacks still
 * refresh, update and destroy.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as Adapter from "./dynamic/adapter.ts";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { requireCached } from "./dynamic/load.ts";

type AdapterModule = typeof Adapter;

let adapter: AdapterModule | undefined;
const load = () => (adapter ??= requireCached<AdapterModule>(import.meta.url, adapterPath()));

/** The bundled adapter of the built package when it is there, else the adapter beside this file. */
function adapterPath(): string {
  const bundled = "../dynamic/provider/dynamic/adapter";
  const built = import.meta.url.endsWith(".js");
  return built && existsSync(fileURLToPath(new URL(`${bundled}.js`, import.meta.url)))
    ? bundled
    : "./dynamic/adapter";
}

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/** The provider object of a resource type (one per type, kept for the life of the process). */
export function provider(type: string): pulumi.dynamic.ResourceProvider {
  let p = providers.get(type);
  if (!p) {
    p = {
      configure: async (req) => configure(req.config),
      check: async (olds, news) => check(type, olds, news),
      diff: async (id, olds, news) => diff(type, id, olds, news),
      create: (inputs) => create(type, inputs),
      read: (id, props) => read(type, id, props ?? {}),
      update: (id, olds, news) => update(type, id, olds, news),
      delete: (id, props) => remove(type, id, props),
    };
    providers.set(type, p);
  }
  return p;
}

export const configure: AdapterModule["configure"] = (config) => load().configure(config);
export const check: AdapterModule["check"] = (type, olds, news) => load().check(type, olds, news);
export const diff: AdapterModule["diff"] = (type, id, olds, news) => load().diff(type, id, olds, news);
export const create: AdapterModule["create"] = (type, inputs) => load().create(type, inputs);
export const read: AdapterModule["read"] = (type, id, props) => load().read(type, id, props);
export const update: AdapterModule["update"] = (type, id, olds, news) => load().update(type, id, olds, news);
export const remove: AdapterModule["remove"] = (type, id, props) => load().remove(type, id, props);
