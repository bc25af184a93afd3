// Routes of a sandbox's files: GET and PUT .../files, the guest path checked, contents streamed
// as base64 JSON.

import { SANDBOXES } from "../../../api/endpoints/index.ts";
import { LIMITS } from "../../../api/index.ts";
import type { ServerContext } from "../../context.ts";
import { serve } from "../../http/endpoints.ts";
import { ApiError } from "../../http/errors.ts";
import type { RequestContext } from "../../http/router.ts";
import type { SandboxService } from "../service.ts";
import type { FileStream } from "../runtime/index.ts";
import { readFileUpload } from "./file-upload.ts";
import { runOn, sandboxRoute, targetOf } from "./common.ts";

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

async function readFileBody(rc: RequestContext): Promise<{ path: string; data: Buffer }> {
  const declared = Number(rc.req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > FILE_BODY_LIMIT) throw tooLarge();
  const body = await readFileUpload(rc.req, {
    maxBytes: LIMITS.fileMaxBytes,
    maxBodyBytes: FILE_BODY_LIMIT,
    tooLarge,
  });
  if (body.empty) throw new ApiError("INVALID_BODY", "request body is required: { path, content_b64 }");
  const path = checkPath(body.path, "path");
  if (!body.data) throw new ApiError("INVALID_BODY", "content_b64 is required (the file's content, base64)");
  return { path, data: body.data };
}

/**
 * Writes { path, content_b64 } with the file's bytes base64-encoded as they come from the
 * sandbox (Content-Length is known from the size): a few chunks in memory at a time. If
 * the sandbox's stream breaks, the response is cut short (the client sees a short body).
 */
async function sendFile(rc: RequestContext, path: string, file: FileStream): Promise<void> {
  const head = Buffer.from(`{"path":${JSON.stringify(path)},"content_b64":"`);
  const tail = Buffer.from(`"}`);
  rc.res.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": head.length + 4 * Math.ceil(file.size / 3) + tail.length,
  });
  if (rc.method === "HEAD") {
    file.stream.destroy();
    rc.res.end();
    return;
  }
  rc.res.write(head);
  let carry = Buffer.alloc(0); // 0-2 bytes not yet encoded (base64 works in groups of 3)
  try {
    for await (const chunk of file.stream as AsyncIterable<Buffer>) {
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - (bytes.length % 3);
      carry = Buffer.from(bytes.subarray(whole));
      if (whole === 0) continue;
      if (!rc.res.write(bytes.subarray(0, whole).toString("base64"))) {
        await new Promise<void>((r) => {
          const done = () => {
            rc.res.off("drain", done);
            rc.res.off("close", done);
            r();
          };
          rc.res.on("drain", done);
          rc.res.on("close", done);
        });
      }
      if (rc.res.destroyed) {
        file.stream.destroy();
        return;
      }
    }
    await file.done;
  } catch {
    // Headers are out: the only way to say it failed is to cut the body short.
    rc.res.destroy();
    return;
  }
  if (carry.length) rc.res.write(carry.toString("base64"));
  rc.res.end(tail);
}

/** GET / PUT .../files: file contents as base64 JSON; the sandbox resolves paths in its own view. */
export function registerSandboxFileRoutes(ctx: ServerContext, svc: SandboxService): void {
  serve(
    ctx,
    SANDBOXES.readFile,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "read files of", "running");
      for (const k of rc.query.keys())
        if (k !== "path")
          throw new ApiError("INVALID_QUERY", `unknown query parameter ${k} (files takes path)`);
      const path = checkPath(rc.query.get("path") ?? undefined, "path");
      await runOn(
        svc,
        t,
        async () => {
          const file = await t.rt.openFile(t.live.id, path);
          await sendFile(rc, path, file);
        },
        "file",
      );
      return undefined;
    }),
  );

  serve(
    ctx,
    SANDBOXES.writeFile,
    sandboxRoute(svc, async (rc) => {
      const t = targetOf(svc, rc, "write files of", "running");
      const { path, data } = await readFileBody(rc);
      await runOn(svc, t, () => t.rt.writeFile(t.live.id, path, data), "file");
      return { status: 204 };
    }),
  );
}
