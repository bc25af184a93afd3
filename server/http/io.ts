import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import type { Reason } from "../../api/index.ts";
import { ApiError, zodError } from "./errors.ts";
import type { RequestContext } from "./router.ts";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Reads a request body as JSON: 415 without a JSON content type, 413 above the limit, 400 when malformed. */
export function readJsonBody(req: IncomingMessage, limitBytes = DEFAULT_BODY_LIMIT): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        resolve(parseJsonBody(req, chunks, size, limitBytes));
      } catch (e) {
        reject(e);
      }
    });
    req.on("error", reject);
  });
}

function parseJsonBody(req: IncomingMessage, chunks: Buffer[], size: number, limitBytes: number): unknown {
  if (size === 0) return undefined;
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      `request bodies must be JSON: Content-Type must be application/json (got ${type || "none"})`,
    );
  }
  if (size > limitBytes)
    throw new ApiError("BODY_TOO_LARGE", `request body is larger than ${limitBytes} bytes`);
  try {
    return JSON.parse(
      chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
    );
  } catch {
    throw new ApiError("INVALID_BODY", "request body is not valid JSON");
  }
}

/** The body parsed by schema; a missing body counts as `{}` when `optional`. */
export async function parseBody<S extends z.ZodType>(
  ctx: RequestContext,
  schema: S,
  opts: { reason?: Reason; optional?: boolean } = {},
): Promise<z.infer<S>> {
  const reason = opts.reason ?? "INVALID_BODY";
  let raw = await ctx.json();
  if (raw === undefined) {
    if (!opts.optional) throw new ApiError(reason, "request body is required (JSON object)");
    raw = {};
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw zodError(parsed.error, reason);
  return parsed.data;
}

/** Query parameters parsed by schema (repeated keys: the last one counts). */
export function parseQuery<S extends z.ZodType>(
  ctx: RequestContext,
  schema: S,
  omit: readonly string[] = [],
): z.infer<S> {
  const obj: Record<string, string> = {};
  for (const [k, v] of ctx.query) if (!omit.includes(k)) obj[k] = v;
  const parsed = schema.safeParse(obj);
  if (!parsed.success) throw zodError(parsed.error, "INVALID_QUERY");
  return parsed.data;
}
