/**
 * Types of the two parts of undici the client loads by their own paths (http.ts): its keep-alive
 * Agent and the request API of a dispatcher. undici's package entry also loads its fetch,
 * cookies, caches and WebSocket, whose modules read `globalThis.Headers` and so make Node load its
 * own copy of undici too: several times the client's share of a process's start.
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
