/**
 * Types of the parts of undici the client loads by their own paths (http.ts): its keep-alive
 * Agent, the request API of a dispatcher and its parsing of response headers. undici's package
 * entry also loads its fetch, cookies, caches and WebSocket, whose modules read
 * `globalThis.Headers` and so make Node load its own copy of undici too: several times the
 * client's share of a process's start.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  /** `Dispatcher.prototype.request`, called with the dispatcher to send through as `this`. */
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}

declare module "undici/lib/core/util.js" {
  /** A response's raw header names and values as an object (names lower-cased, repeats in arrays). */
  export function parseHeaders(headers: Buffer[]): Record<string, string | string[] | undefined>;
}
