import { LIMITS } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import type { RequestContext } from "../http/router.ts";
import type { SandboxService } from "../sandbox-service.ts";

const FILES = "/orgs/:org/workloads/:uid/files";

/** Longest guest path accepted (as PATH_MAX). */
const PATH_MAX = 4096;
/**
 * Largest PUT .../files body: the base64 of a 256 MiB file plus room for the path and the JSON
 * around it. A Content-Length above it is refused before the body is read.
 */
export const FILE_BODY_LIMIT = 4 * Math.ceil(LIMITS.fileMaxBytes / 3) + 64 * 1024;

function tooLarge(): ApiError {
  return new ApiError(
    "WORKLOAD_SANDBOX_FILE_TOO_LARGE",
    `files are at most ${LIMITS.fileMaxBytes} bytes (256 MiB; request bodies at most ${FILE_BODY_LIMIT} bytes of JSON with base64 content)`,
    { headers: { connection: "close" } },
  );
}

function checkPath(p: unknown, field: string): string {
  if (typeof p !== "string" || p === "")
    throw new ApiError("WORKLOAD_SANDBOX_PATH_INVALID", `${field} is required (an absolute guest path)`);
  if (!p.startsWith("/"))
    throw new ApiError("WORKLOAD_SANDBOX_PATH_INVALID", `${field} must be an absolute guest path (got ${p})`);
  if (p.includes("\0"))
    throw new ApiError("WORKLOAD_SANDBOX_PATH_INVALID", `${field} must not contain NUL characters`);
  if (Buffer.byteLength(p) > PATH_MAX)
    throw new ApiError("WORKLOAD_SANDBOX_PATH_INVALID", `${field} must be at most ${PATH_MAX} bytes`);
  return p;
}

/** Decodes strict base64 (length a multiple of 4, only the base64 alphabet, padding at the end). */
function decodeBase64(s: string): Buffer | undefined {
  if (s.length % 4 !== 0) return undefined;
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  const data = Buffer.from(s, "base64");
  // Node skips characters outside the alphabet: a shorter result means the text was not base64.
  if (data.length !== (s.length / 4) * 3 - pad) return undefined;
  if (/[-_]/.test(s)) return undefined;
  return data;
}

async function readFileBody(rc: RequestContext): Promise<{ path: string; data: Buffer }> {
  const declared = Number(rc.req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > FILE_BODY_LIMIT) throw tooLarge();
  let raw: unknown;
  try {
    raw = await rc.json({ limitBytes: FILE_BODY_LIMIT });
  } catch (e) {
    if (e instanceof ApiError && e.reason === "BODY_TOO_LARGE") throw tooLarge();
    throw e;
  }
  if (raw === undefined)
    throw new ApiError("INVALID_BODY", "request body is required: { path, content_b64 }");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ApiError("INVALID_BODY", "request body must be a JSON object: { path, content_b64 }");
  const body = raw as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => k !== "path" && k !== "content_b64");
  if (unknown.length)
    throw new ApiError(
      "INVALID_BODY",
      `unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (expected path, content_b64)`,
    );
  const path = checkPath(body.path, "path");
  if (typeof body.content_b64 !== "string")
    throw new ApiError("INVALID_BODY", "content_b64 is required (the file's content, base64)");
  const data = decodeBase64(body.content_b64);
  if (!data) throw new ApiError("INVALID_BODY", "content_b64 must be base64 (RFC 4648, with padding)");
  if (data.length > LIMITS.fileMaxBytes) throw tooLarge();
  return { path, data };
}

/** GET / PUT .../files: file contents as base64 JSON; the sandbox resolves paths in its own view. */
export function registerSandboxFileRoutes(ctx: ServerContext, svc: SandboxService): void {
  const { router } = ctx;

  router.get(
    FILES,
    svc.route(async (rc) => {
      const t = svc.targetOf(rc, "read files of", "running");
      for (const k of rc.query.keys())
        if (k !== "path")
          throw new ApiError("INVALID_QUERY", `unknown query parameter ${k} (files takes path)`);
      const path = checkPath(rc.query.get("path") ?? undefined, "path");
      const data = await svc.busy(t, () => t.rt.readFile(t.live.id, path), "file");
      // Written in pieces: a 256 MiB file is not turned into one JSON string.
      const head = Buffer.from(`{"path":${JSON.stringify(path)},"content_b64":"`);
      const tail = Buffer.from(`"}`);
      const b64Length = 4 * Math.ceil(data.length / 3);
      rc.res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": head.length + b64Length + tail.length,
      });
      if (rc.method === "HEAD") {
        rc.res.end();
        return undefined;
      }
      rc.res.write(head);
      const CHUNK = 3 * 1024 * 1024;
      for (let i = 0; i < data.length; i += CHUNK) {
        const ok = rc.res.write(data.subarray(i, i + CHUNK).toString("base64"));
        if (!ok)
          await new Promise<void>((r) => {
            const done = () => {
              rc.res.off("drain", done);
              rc.res.off("close", done);
              r();
            };
            rc.res.on("drain", done);
            rc.res.on("close", done);
          });
        if (rc.res.destroyed) return undefined;
      }
      rc.res.end(tail);
      return undefined;
    }),
  );

  router.put(
    FILES,
    svc.route(async (rc) => {
      const t = svc.targetOf(rc, "write files of", "running");
      const { path, data } = await readFileBody(rc);
      await svc.busy(t, () => t.rt.writeFile(t.live.id, path, data), "file");
      return { status: 204 };
    }),
  );
}
