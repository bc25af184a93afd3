/** `client.templates`: reusable workload templates, spec section 4.4. */
import {
  TemplateCreated,
  WorkloadTemplate,
  WorkloadTemplateList,
  type Page,
  type TemplateCreate,
  type TemplateListQuery,
  type TemplatePatch,
} from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";

const ALL = "/orgs/{org}/templates";
const ONE = `${ALL}/{uid}`;

export class Templates {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Returns the new template's uid. Not retried after an ambiguous failure. */
  create(body: TemplateCreate, opts?: RequestOptions): Promise<TemplateCreated> {
    return this.#t.json({ method: "POST", route: ALL, body }, TemplateCreated, opts);
  }

  list(query: TemplateListQuery = {}, opts?: RequestOptions): Promise<Page<WorkloadTemplate>> {
    return this.#t.json({ method: "GET", route: ALL, query }, WorkloadTemplateList, opts);
  }

  iterate(
    query: Omit<TemplateListQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<WorkloadTemplate, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<WorkloadTemplate> {
    return this.#t.json({ method: "GET", route: ONE, params: { uid } }, WorkloadTemplate, opts);
  }

  update(uid: string, patch: TemplatePatch, opts?: RequestOptions): Promise<WorkloadTemplate> {
    return this.#t.json(
      { method: "PATCH", route: ONE, params: { uid }, body: patch },
      WorkloadTemplate,
      opts,
    );
  }

  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.#t.empty({ method: "DELETE", route: ONE, params: { uid } }, opts);
  }
}
