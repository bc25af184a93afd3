/** `client.templates`: reusable workload templates, spec section 4.4. */
import {
  TemplateCreated,
  WorkloadTemplate,
  WorkloadTemplateList,
  type TemplateCreate,
  type TemplateListQuery,
  type TemplatePatch,
} from "../api/index.ts";
import { Collection } from "./collection.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class Templates extends Collection<
  WorkloadTemplate,
  WorkloadTemplate,
  TemplateListQuery,
  TemplatePatch
> {
  constructor(transport: Transport) {
    super(transport, "templates", WorkloadTemplate, WorkloadTemplateList);
  }

  /** Returns the new template's uid. Not retried after an ambiguous failure. */
  create(body: TemplateCreate, opts?: RequestOptions): Promise<TemplateCreated> {
    return this.t.json({ method: "POST", route: this.all, body }, TemplateCreated, opts);
  }
}
