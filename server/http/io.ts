import type { IncomingMessage } from "node:http";
import { ApiError } from "./errors.ts";

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
