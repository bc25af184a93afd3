/**
 * Pulumi's List RPC (`pulumi do cws:<Kind> list`) over the provider core's list definitions
 * (core/list.ts, declared beside their kinds, the same `terraform query` and `cws adopt` read):
 * the query's filters, checked by the definition's rules; one page of results `{ id, name }`
 * (the id is the object's uid, as Read and an import take it); then, when the org has more, a
 * continuation that is the API's own cursor. A page holds at most `limit` results (the CLI's
 * `--count` lowers it page by page), at most `page_size` and at most PAGE (`--all` follows them).
 * A query with unknown values is answered with a lone Computed.
 */
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { listFailures, listFrom } from "../core/list.ts";
import type { Context } from "../core/types.ts";
import { containsUnknown } from "../core/unknowns.ts";
import type { CallInfo } from "../frontend/grpc-server.ts";
import { LISTS } from "../registry.ts";
import { PACKAGE } from "../schema/package-schema.ts";
import { decode } from "./values.ts";

type ListRequest = InstanceType<typeof providerPb.ListRequest>;
const { ListResponse } = providerPb;

/** Runs `work` with a context of the plugin's session (its client, its cancel). */
export type RunWithContext = <T>(work: (ctx: Context) => Promise<T>) => Promise<T>;

function response(set: (r: InstanceType<typeof ListResponse>) => void) {
  const r = new ListResponse();
  set(r);
  return r;
}

/** The most results a page holds: what `pulumi do ... list` prints without `--all` or `--count`. */
export const PAGE = 100;

/** How many results this page holds at most: PAGE, or less where `limit` or `page_size` asks it. */
const wanted = (req: ListRequest) =>
  Math.min(PAGE, ...[req.getLimit(), req.getPageSize()].filter((n) => n > 0));

export async function* listResponses(
  req: ListRequest,
  run: RunWithContext,
  call?: CallInfo,
): AsyncGenerator<InstanceType<typeof ListResponse>> {
  const token = req.getToken();
  const kind = token.startsWith(`${PACKAGE}:index:`) ? token.slice(`${PACKAGE}:index:`.length) : token;
  const def = LISTS[kind];
  if (!def)
    throw new Error(
      `${PACKAGE}: ${token} cannot be listed; these can: ${Object.keys(LISTS)
        .map((k) => `${PACKAGE}:index:${k}`)
        .join(", ")}`,
    );
  const query = req.getQuery()?.toJavaScript() ?? {};
  if (containsUnknown(query)) {
    yield response((r) => r.setComputed(new ListResponse.Computed()));
    return;
  }
  const filters = Object.fromEntries(
    Object.entries(decode(req.getQuery()).props).filter(([, v]) => v !== null && v !== undefined),
  );
  const failures = listFailures(def, filters);
  if (failures.length)
    throw new Error(
      `invalid list inputs for ${token}:${failures.map((f) => `\n- ${f.property}: ${f.reason}`).join("")}`,
    );
  const cursor = req.getContinuationToken();
  const page = await run((ctx) => {
    const signal = call ? AbortSignal.any([call.signal, ...(ctx.signal ? [ctx.signal] : [])]) : ctx.signal;
    return listFrom(def, ctx.client, filters, { ...(cursor ? { cursor } : {}), want: wanted(req) }, signal);
  });
  for (const l of page.items)
    yield response((r) => {
      const result = new ListResponse.Result();
      result.setId(l.uid);
      result.setName(l.name);
      r.setResult(result);
    });
  if (page.next)
    yield response((r) => {
      const c = new ListResponse.Continuation();
      c.setContinuationToken(page.next!);
      r.setContinuation(c);
    });
}
