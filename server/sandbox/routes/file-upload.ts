// The body of PUT .../files, `{ "path": ..., "content_b64": ... }`, read as it arrives: the
// base64 text is decoded chunk by chunk into one buffer of the file's size, so an upload
// holds about the file once (never the JSON text, a copy of it and a parsed string too).

import type { IncomingMessage } from "node:http";
import { ApiError } from "../../http/errors.ts";

const B64_CHUNK = 64 * 1024; // base64 characters decoded at a time (a multiple of 4)
const B64_ALPHABET = /^[A-Za-z0-9+/]*$/;
const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t",
};

function invalid(message: string): ApiError {
  return new ApiError("INVALID_BODY", message);
}

/** Decodes base64 text given in pieces (RFC 4648, padding only at the end). */
class Base64Sink {
  private pending = "";
  private out: Buffer;
  size = 0;
  private padded = false;
  private readonly maxBytes: number;
  private readonly tooLarge: () => Error;

  constructor(capacity: number, maxBytes: number, tooLarge: () => Error) {
    this.maxBytes = maxBytes;
    this.tooLarge = tooLarge;
    this.out = Buffer.allocUnsafe(Math.max(0, Math.min(capacity, maxBytes)));
  }

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= B64_CHUNK) this.flush(false);
  }

  end(): Buffer {
    this.flush(true);
    return this.out.subarray(0, this.size);
  }

  private flush(final: boolean): void {
    const p = this.pending;
    const n = final ? p.length : p.length - (p.length % 4);
    if (final && n % 4 !== 0) throw invalid("content_b64 must be base64 (RFC 4648, with padding)");
    const text = p.slice(0, n);
    this.pending = p.slice(n);
    if (!text) return;
    if (this.padded) throw invalid("content_b64 must be base64: padding only at the end");
    let pad = 0;
    if (text.endsWith("==")) pad = 2;
    else if (text.endsWith("=")) pad = 1;
    if (pad) {
      if (!final && this.pending.length) throw invalid("content_b64 must be base64: padding only at the end");
      this.padded = true;
    }
    const body = text.slice(0, text.length - pad);
    if (!B64_ALPHABET.test(body)) throw invalid("content_b64 must be base64 (RFC 4648, with padding)");
    const bytes = (text.length / 4) * 3 - pad;
    if (this.size + bytes > this.maxBytes) throw this.tooLarge();
    if (this.size + bytes > this.out.length) {
      const bigger = Buffer.allocUnsafe(
        Math.min(this.maxBytes, Math.max(this.size + bytes, this.out.length * 2)),
      );
      this.out.copy(bigger, 0, 0, this.size);
      this.out = bigger;
    }
    this.size += this.out.write(text, this.size, "base64");
  }
}

type Field = "path" | "content_b64";

/**
 * Reads { path, content_b64 } from req. Errors: 415 (not JSON), 400 INVALID_BODY (not that
 * object, bad base64, unknown or repeated fields), tooLarge() past maxBytes of content.
 */
export async function readFileUpload(
  req: IncomingMessage,
  opts: { maxBytes: number; maxBodyBytes: number; tooLarge: () => Error },
): Promise<{ path: unknown; data: Buffer | undefined; empty: boolean }> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const declared = Number(req.headers["content-length"]);
  const capacity = Number.isFinite(declared) ? Math.floor((declared * 3) / 4) : 1 << 20;
  const sink = new Base64Sink(capacity, opts.maxBytes, opts.tooLarge);

  // Parser state: a flat JSON object whose values are strings (others are refused).
  let state = "start" as "start" | "key-or-end" | "key" | "colon" | "value" | "comma-or-end" | "done";
  let inString = false;
  let escape = false;
  let unicode = ""; // digits of a \uXXXX escape
  let raw: number[] = []; // bytes of a key or of path
  let field: Field | undefined;
  const seen = new Set<string>();
  let path: unknown;
  let got = 0;
  let sawContent = false;

  const finishString = (): void => {
    const text = Buffer.from(raw).toString("utf8");
    raw = [];
    if (state === "key") {
      if (text !== "path" && text !== "content_b64")
        throw invalid(`unknown field: ${text} (expected path, content_b64)`);
      if (seen.has(text)) throw invalid(`field ${text} is given twice`);
      seen.add(text);
      field = text;
      state = "colon";
    } else {
      if (field === "path") path = text;
      state = "comma-or-end";
    }
  };

  const onByte = (b: number, chunk: Buffer, i: number): number => {
    if (inString) {
      const into = (ch: string) => {
        if (field === "content_b64" && state === "value") sink.write(ch);
        else raw.push(...Buffer.from(ch, "utf8"));
      };
      if (unicode !== "") {
        unicode += String.fromCharCode(b);
        if (unicode.length === 5) {
          if (!/^u[0-9a-fA-F]{4}$/.test(unicode)) throw invalid("request body is not valid JSON");
          into(String.fromCharCode(Number.parseInt(unicode.slice(1), 16)));
          unicode = "";
        }
        return i + 1;
      }
      if (escape) {
        escape = false;
        if (b === 0x75) {
          unicode = "u";
          return i + 1;
        }
        const ch = ESCAPES[b];
        if (ch === undefined) throw invalid("request body is not valid JSON");
        into(ch);
        return i + 1;
      }
      if (field === "content_b64" && state === "value") {
        // Fast path: copy the run up to the next quote or backslash.
        let j = i;
        while (j < chunk.length && chunk[j] !== 0x22 && chunk[j] !== 0x5c && chunk[j]! >= 0x20) j++;
        if (j > i) {
          sink.write(chunk.toString("latin1", i, j));
          return j;
        }
      }
      if (b === 0x22) {
        inString = false;
        finishString();
      } else if (b === 0x5c) escape = true;
      else if (b < 0x20) throw invalid("request body is not valid JSON");
      else raw.push(b);
      return i + 1;
    }
    if (WS.has(b)) return i + 1;
    switch (state) {
      case "start":
        if (b !== 0x7b) throw invalid("request body must be a JSON object: { path, content_b64 }");
        state = "key-or-end";
        return i + 1;
      case "key-or-end":
        if (b === 0x7d && seen.size === 0) {
          state = "done";
          return i + 1;
        }
      // falls through: a key
      case "key":
        if (b !== 0x22) throw invalid("request body is not valid JSON");
        state = "key";
        inString = true;
        return i + 1;
      case "colon":
        if (b !== 0x3a) throw invalid("request body is not valid JSON");
        state = "value";
        return i + 1;
      case "value":
        if (b !== 0x22) {
          if (field === "path")
            throw new ApiError(
              "WORKLOAD_SANDBOX_PATH_INVALID",
              "path must be a string (an absolute guest path)",
            );
          throw invalid("content_b64 is required (the file's content, base64)");
        }
        if (field === "content_b64") sawContent = true;
        inString = true;
        return i + 1;
      case "comma-or-end":
        if (b === 0x2c) {
          state = "key";
          return i + 1;
        }
        if (b === 0x7d) {
          state = "done";
          return i + 1;
        }
        throw invalid("request body is not valid JSON");
      case "done":
        throw invalid("request body is not valid JSON");
    }
  };

  let typeChecked = false;
  // An error part way through leaves the request as it is (not destroyed): the rest of the body
  // is drained once the error is answered, and the connection serves the next request
  // (server/http/bodies.ts). A destroyed request would leave it unread, the connection stuck.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (!typeChecked && chunk.length) {
      typeChecked = true;
      if (type !== "application/json") {
        throw new ApiError(
          "UNSUPPORTED_MEDIA_TYPE",
          `request bodies must be JSON: Content-Type must be application/json (got ${type || "none"})`,
        );
      }
    }
    got += chunk.length;
    if (got > opts.maxBodyBytes) throw opts.tooLarge();
    for (let i = 0; i < chunk.length;) i = onByte(chunk[i]!, chunk, i);
  }
  if (got === 0) return { path: undefined, data: undefined, empty: true };
  if (state !== "done" || inString) throw invalid("request body is not valid JSON");
  return { path, data: sawContent ? sink.end() : undefined, empty: false };
}
