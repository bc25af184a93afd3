import type { Endpoint } from "../../api/endpoints/index.ts";

/** An OpenAPI link: the target operation, where each of its path parameters comes from, its body. */
export interface OpenApiLink {
  operationId: string;
  parameters: Record<string, string>;
  requestBody?: unknown;
  description: string;
}

const paramsOf = (pattern: string): string[] => [...pattern.matchAll(/:(\w+)/g)].map(([, n]) => n!);

/** Reasons an operation answers when its workload is not deployed: it needs a running one. */
const NOT_DEPLOYED = new Set(["WORKLOAD_SANDBOX_NOT_DEPLOYED", "WORKLOAD_NOT_RUNNING"]);
const needsRunning = (op: Endpoint): boolean => op.reasons.some((r) => NOT_DEPLOYED.has(r));

/**
 * The links of an operation that creates something (its endpoint's `creates`), or whose answer
 * opens operations on the object it acted on (`answers`: a deploy): one to every
 * operation on the created object or under it (WebSocket upgrades aside), so a generated client
 * or a stateful fuzzer walks create → deploy → state → logs → exec → delete. The created
 * object's parameter comes from the answer; a parameter the request's body names (`named`: the
 * SSH key a workload was created with) from that body; the others from the request's own path.
 * An operation that needs a running workload (exec, files, terminals, fork, ...) is linked from
 * what runs one (the deploy, a fork), not from a create, whose workload is not deployed yet: a
 * walk from a create goes through the deploy to reach it. The operations an answer leads to
 * beyond its object (`leadsTo`: a created key into a workload create) are linked as declared.
 */
export function linksOf(
  op: Endpoint,
  endpoints: readonly Endpoint[],
  operationId: (op: Endpoint) => string,
): Record<string, OpenApiLink> | undefined {
  const links = [...memberLinks(op, endpoints), ...leadLinks(op, endpoints)];
  if (!links.length) return undefined;
  return Object.fromEntries(
    links.map(({ target, link }) => [operationId(target), { operationId: operationId(target), ...link }]),
  );
}

type Linked = { target: Endpoint; link: Omit<OpenApiLink, "operationId"> };

/** The links to the operations on the object `op` creates or answers (`creates`, `answers`). */
function memberLinks(op: Endpoint, endpoints: readonly Endpoint[]): Linked[] {
  const object = op.creates ?? op.answers;
  if (!object) return [];
  const mine = new Set(paramsOf(op.pattern));
  const member = object.pattern;
  const created =
    member.split("/").length - 1 - [...member.split("/")].reverse().findIndex((s) => s.startsWith(":"));
  const from = object.from ?? "/uid";
  const named = op.creates?.named ?? {};
  return endpoints
    .filter(
      (target) =>
        !target.websocket &&
        target.prefix === op.prefix &&
        (target.pattern === member || target.pattern.startsWith(`${member}/`)) &&
        target !== op &&
        !(op.creates && !needsRunning(op) && needsRunning(target)),
    )
    .map((target) => {
      const parameters: Record<string, string> = {};
      target.pattern.split("/").forEach((segment, i) => {
        if (!segment.startsWith(":")) return;
        const param = segment.slice(1);
        if (i === created) parameters[param] = `$response.body#${from}`;
        else if (mine.has(param)) parameters[param] = `$request.path.${param}`;
        else if (named[param]) parameters[param] = `$request.body#${named[param]}`;
      });
      const description = `${target.method} ${target.pattern} of what this created (its ${from.slice(1)} from the answer)`;
      return { target, link: { parameters, description } };
    });
}

/** The links `op` declares beyond its object (`leadsTo`), path parameters from its own path. */
function leadLinks(op: Endpoint, endpoints: readonly Endpoint[]): Linked[] {
  const mine = new Set(paramsOf(op.pattern));
  return (op.leadsTo ?? []).map((lead) => {
    const target = endpoints.find((e) => `${e.method} ${e.pattern}` === lead.operation);
    if (!target)
      throw new TypeError(`${op.method} ${op.pattern} leads to ${lead.operation}, which is no endpoint`);
    const parameters: Record<string, string> = {};
    for (const param of paramsOf(target.pattern))
      if (mine.has(param)) parameters[param] = `$request.path.${param}`;
    const body = lead.body === undefined ? {} : { requestBody: lead.body };
    return { target, link: { parameters, ...body, description: lead.description } };
  });
}
