/** `serveResource`: the four endpoints every resource has, served from its `ResourceService`. */
import type { ResourceEndpoints } from "../../api/endpoints/index.ts";
import type { PageQuery } from "../../api/index.ts";
import type { ResourceService } from "./resource-service.ts";
import { serve, type Routers } from "../http/endpoints.ts";
import type { Doc } from "../store/doc-table.ts";

/** Serves a resource's list, get, PATCH and delete, each answering with `view` of the member. */
export function serveResource<R extends Doc & { updated_at: string }, P>(
  routers: Routers,
  endpoints: ResourceEndpoints,
  svc: ResourceService<R, P>,
  view: (r: R) => unknown,
): void {
  serve(routers, endpoints.list, (rc) => {
    const page = svc.list(rc.org, rc.parsedQuery() as PageQuery);
    return { status: 200, body: { items: page.items.map(view), next_cursor: page.next_cursor } };
  });
  serve(routers, endpoints.get, (rc) => ({ status: 200, body: view(svc.get(rc.org, rc.params.uid!)) }));
  serve(routers, endpoints.update, async (rc) => ({
    status: 200,
    body: view(await svc.patch(rc.org, rc.params.uid!, () => rc.body() as Promise<P>)),
  }));
  serve(routers, endpoints.delete, (rc) => {
    svc.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
