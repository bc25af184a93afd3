/** `client.meta`: health, readiness, version (no authentication) and the region list (outside the org scope). */
import { Health, RegionList, Version, type Region } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class Meta {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  health(opts?: RequestOptions): Promise<Health> {
    return this.#t.json({ method: "GET", route: "/healthz", auth: false }, Health, opts);
  }

  ready(opts?: RequestOptions): Promise<Health> {
    return this.#t.json({ method: "GET", route: "/readyz", auth: false }, Health, opts);
  }

  version(opts?: RequestOptions): Promise<Version> {
    return this.#t.json({ method: "GET", route: "/version", auth: false }, Version, opts);
  }

  /** `{baseUrl}/region`. Sent with the token (the spec leaves its authentication open). */
  regions(opts?: RequestOptions): Promise<Region[]> {
    return this.#t.json({ method: "GET", route: "/region" }, RegionList, opts);
  }
}
