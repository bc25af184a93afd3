/** `client.meta`: health, readiness, version (no authentication) and the region list (outside the org scope). */
import { META } from "../api/endpoints/index.ts";
import type { Health, Region, Version } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class Meta {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  health(opts?: RequestOptions): Promise<Health> {
    return this.#t.json({ endpoint: META.health }, opts);
  }

  ready(opts?: RequestOptions): Promise<Health> {
    return this.#t.json({ endpoint: META.ready }, opts);
  }

  version(opts?: RequestOptions): Promise<Version> {
    return this.#t.json({ endpoint: META.version }, opts);
  }

  /** `{baseUrl}/region`. Sent with the token (the spec leaves its authentication open). */
  regions(opts?: RequestOptions): Promise<Region[]> {
    return this.#t.json({ endpoint: META.regions }, opts);
  }
}
