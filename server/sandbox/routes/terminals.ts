// Routes of access tickets, terminal sessions and the desktop description of sandboxes.

import type { IncomingMessage } from "node:http";
import { LIMITS, TERMINAL_ID, type Reason, type TerminalSession } from "../../../api/index.ts";
import { SANDBOXES } from "../../../api/endpoints/index.ts";
import type { ServerContext } from "../../context.ts";
import { serve } from "../../http/endpoints.ts";
import { ApiError } from "../../http/errors.ts";
import type { RequestContext } from "../../http/router.ts";
import type { SandboxService } from "../service.ts";
import { desktopOf } from "../targets.ts";
import type { TerminalSession as RuntimeTerminal } from "../runtime/index.ts";
import { sandboxApiError, sandboxRoute, targetInPool, targetOf } from "./common.ts";

/** An optional JSON object body with only `fields`, each an integer in [min, max] when present. */
async function intFields<K extends string>(
  rc: RequestContext,
  fields: readonly K[],
  min: number,
  max: number,
  reason: Reason,
): Promise<Partial<Record<K, number>>> {
  const raw = await rc.json();
  if (raw === undefined) return {};
  // A JSON `null` is a body, and not the object the document states (no body is `{}`).
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new ApiError("INVALID_BODY", "request body must be a JSON object");
  const body = raw as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => !(fields as readonly string[]).includes(k));
  if (unknown.length)
    throw new ApiError(
      "INVALID_BODY",
      `unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (expected ${fields.join(", ")})`,
    );
  const out: Partial<Record<K, number>> = {};
  for (const f of fields) {
    const v = body[f];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
      throw new ApiError(
        reason,
        `${f} must be an integer between ${min} and ${max} (got ${JSON.stringify(v)})`,
      );
    out[f] = v;
  }
  return out;
}

export function terminalView(t: RuntimeTerminal): TerminalSession {
  const v: TerminalSession = { id: t.id, pid: t.pid, started_at: t.startedAt, exited: t.exited };
  if (t.exited) v.exit_code = t.exitCode ?? -1;
  return v;
}

/** ws:// (or wss:// behind a TLS proxy) URL of a path under /v3 on the host the request was sent to. */
export function wsUrl(req: IncomingMessage, path: string, fallbackHost: string): string {
  const proto = String(req.headers["x-forwarded-proto"] ?? "")
    .split(",")[0]!
    .trim()
    .toLowerCase();
  const host = req.headers.host ?? fallbackHost;
  return `${proto === "https" ? "wss" : "ws"}://${host}/v3${path}`;
}

/** Access tickets, terminal sessions and the desktop description. */
export function registerSandboxTerminalRoutes(ctx: ServerContext, svc: SandboxService): void {
  serve(
    ctx,
    SANDBOXES.createTicket,
    sandboxRoute(svc, async (rc) => {
      const { pool, t } = targetInPool(svc, rc, "mint access tickets for", "deployed");
      const body = await intFields(
        rc,
        ["ttl_sec"],
        LIMITS.ticketTtlMinSec,
        LIMITS.ticketTtlMaxSec,
        "WORKLOAD_ACCESS_TICKET_TTL_INVALID",
      );
      const ttl = body.ttl_sec ?? LIMITS.ticketTtlDefaultSec;
      return { status: 201, body: svc.mintTicket(rc.org, t.w.uid, pool, ttl) };
    }),
  );

  serve(
    ctx,
    SANDBOXES.listTerminals,
    sandboxRoute(svc, (rc) => {
      const t = targetOf(svc, rc, "list terminals of", "deployed");
      try {
        return { status: 200, body: t.rt.listTerminals(t.live.id) };
      } catch (e) {
        throw sandboxApiError(svc, e, t);
      }
    }),
  );

  serve(
    ctx,
    SANDBOXES.createTerminal,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "open a terminal in", "running");
      const body = await intFields(
        rc,
        ["cols", "rows"],
        LIMITS.terminalSizeMin,
        LIMITS.terminalSizeMax,
        "WORKLOAD_TERMINAL_SIZE_INVALID",
      );
      try {
        const term = await t.rt.openTerminalReady(
          t.live.id,
          body.cols ?? LIMITS.terminalDefaultCols,
          body.rows ?? LIMITS.terminalDefaultRows,
        );
        return { status: 201, body: terminalView(term) };
      } catch (e) {
        throw sandboxApiError(svc, e, t, "terminal");
      }
    }),
  );

  serve(
    ctx,
    SANDBOXES.deleteTerminal,
    sandboxRoute(svc, (rc) => {
      const id = rc.params.terminal!;
      if (!TERMINAL_ID.test(id))
        throw new ApiError(
          "INVALID_PATH",
          `terminal_id must be 1-${LIMITS.terminalIdMax} letters, digits, dots, underscores or hyphens`,
        );
      const t = targetOf(svc, rc, "close a terminal of", "running");
      try {
        t.rt.closeTerminal(t.live.id, id);
      } catch (e) {
        throw sandboxApiError(svc, e, t, "terminal");
      }
      return { status: 204 };
    }),
  );

  serve(
    ctx,
    SANDBOXES.desktop,
    sandboxRoute(svc, (rc) => {
      const t = targetOf(svc, rc, "describe the desktop of", "present");
      const desktop = desktopOf(t);
      if (!desktop.available) return { status: 200, body: desktop };
      const path = `/orgs/${rc.org}/workloads/${t.w.uid}/desktop/ws`;
      return {
        status: 200,
        body: {
          ...desktop,
          ws_url: wsUrl(rc.req, path, `${ctx.options.host}:${ctx.options.port}`),
        },
      };
    }),
  );
}
