/** `client.templates`: reusable workload templates, spec section 4.4. */
import { TEMPLATES } from "../api/endpoints/index.ts";
import type {
  TemplateCreate,
  TemplateCreated,
  TemplateListQuery,
  TemplatePatch,
  WorkloadTemplate,
} from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { ResourceClient } from "./resource-client.ts";

export class Templates extends ResourceClient<WorkloadTemplate, TemplateListQuery, TemplatePatch> {
  constructor(transport: Transport) {
    super(transport, TEMPLATES);
  }

  /** Returns the new template's uid. Not retried after an ambiguous failure. */
  create(body: TemplateCreate, opts?: RequestOptions): Promise<TemplateCreated> {
    return this.t.json({ endpoint: TEMPLATES.create, body }, opts);
  }
}
