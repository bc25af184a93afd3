import type { z } from "zod";
import type { PageQuery } from "../../api/index.ts";
import type { ResourceCollection } from "../common/collection.ts";
import { parseQuery } from "../http/io.ts";
import type { Router } from "../http/router.ts";
import type { Doc } from "../store-collection.ts";

/**
 * The routes every collection has, under `/orgs/:org/<name>`: list (a page, the query parsed by
 * `query`), get, PATCH and delete, each answering with `view` of the member.
 */
export function registerCollectionRoutes<R extends Doc & { updated_at: string }, P>(
  router: Router,
  name: string,
  svc: ResourceCollection<R, P>,
  view: (r: R) => unknown,
  query: z.ZodType<PageQuery>,
): void {
  const one = `/orgs/:org/${name}/:uid`;
  router.get(`/orgs/:org/${name}`, (rc) => {
    const page = svc.list(rc.org, parseQuery(rc, query));
    return { status: 200, body: { items: page.items.map(view), next_cursor: page.next_cursor } };
  });
  router.get(one, (rc) => ({ status: 200, body: view(svc.get(rc.org, rc.params.uid!)) }));
  router.patch(one, async (rc) => ({
    status: 200,
    body: view(await svc.patch(rc.org, rc.params.uid!, () => rc.json())),
  }));
  router.delete(one, (rc) => {
    svc.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
