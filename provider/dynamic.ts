/**
 * What the provider serialized into state loads by name (`pulumi-cws/provider/dynamic`) inside
 * the engine's provider process. The engine starts that process for every operation, so loading
 * is paid each time: this entry loads the adapter (dynamic-adapter.ts) and the resource modules
 * through Node's compile cache (load.ts) on the first call.
 */
import type * as Adapter from "./dynamic-adapter.ts";
import { requireCached } from "./load.ts";

type AdapterModule = typeof Adapter;

let adapter: AdapterModule | undefined;
const load = () => (adapter ??= requireCached<AdapterModule>(import.meta.url, "./dynamic-adapter"));

export const configure: AdapterModule["configure"] = (config) => load().configure(config);
export const check: AdapterModule["check"] = (type, olds, news) => load().check(type, olds, news);
export const diff: AdapterModule["diff"] = (type, id, olds, news) => load().diff(type, id, olds, news);
export const create: AdapterModule["create"] = (type, inputs) => load().create(type, inputs);
export const read: AdapterModule["read"] = (type, id, props) => load().read(type, id, props);
export const update: AdapterModule["update"] = (type, id, olds, news) => load().update(type, id, olds, news);
export const remove: AdapterModule["remove"] = (type, id, props) => load().remove(type, id, props);
