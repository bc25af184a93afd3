// Files of a sandbox, read and written by its agent inside the sandbox's own mount namespace
// (see ../README.md, "Files"): the guest path rules, and the byte streams over the control socket.

import * as path from "node:path";
import type { Readable } from "node:stream";

import { checkRunning, deadline, expectStream, MAX_FILE_BYTES, request, type Sandbox } from "./control.ts";
import { BoundedStream, readSizeLine } from "./streams.ts";
import { SandboxError } from "./errors.ts";

export interface FileStream {
  size: number;
  stream: Readable;
  done: Promise<void>;
}

/** An absolute guest path without NUL, at most 4096 bytes, normalized (`..` resolved). */
export function checkGuestPath(p: string): string {
  if (typeof p !== "string" || !p.startsWith("/")) {
    throw new SandboxError("INVALID_PATH", `guest path must be absolute: ${String(p)}`);
  }
  if (p.includes("\0")) throw new SandboxError("INVALID_PATH", "guest path contains a NUL byte");
  if (Buffer.byteLength(p) > 4096) throw new SandboxError("INVALID_PATH", "guest path too long");
  return path.posix.resolve(p);
}

/**
 * Opens a file of the sandbox for reading: its size, and a stream of exactly that many
 * bytes (it errors if the sandbox sends fewer; extra bytes are dropped). `done` settles
 * when the sandbox has confirmed the read. Memory stays at a few chunks however large
 * the file is (the stream is paused while its reader is).
 */
export async function openGuestFile(sb: Sandbox, guestPath: string): Promise<FileStream> {
  const p = checkGuestPath(guestPath);
  checkRunning(sb);
  sb.touch();
  const s = expectStream(sb);
  const reply = request(sb, { op: "readFile", path: p, token: s.token });
  reply.catch(() => {});
  const header = s.stream.then((sock) => readSizeLine(sock));
  header.catch(() => {});
  try {
    // The agent answers an error before sending anything; a file comes with its size first.
    const first = await Promise.race([header, reply.then(() => header)]);
    const { size, sock } = await deadline(sb, Promise.resolve(first), 30_000, "file stream");
    if (!(Number.isSafeInteger(size) && size >= 0 && size <= MAX_FILE_BYTES)) {
      sock.destroy();
      throw new SandboxError("UNAVAILABLE", "the sandbox announced an invalid file size");
    }
    const stream = new BoundedStream(sock, size);
    const done = reply.then((r) => {
      if (Number(r.size) !== size) throw new SandboxError("UNAVAILABLE", "file stream truncated");
    });
    done.catch(() => {});
    return { size, stream, done };
  } catch (err) {
    s.cancel();
    throw err;
  } finally {
    sb.touch();
  }
}

/** The whole content of an opened file, once the sandbox confirmed the read. */
export async function readAll(f: FileStream): Promise<Buffer> {
  const out = Buffer.allocUnsafe(f.size);
  let n = 0;
  for await (const chunk of f.stream as AsyncIterable<Buffer>) {
    chunk.copy(out, n);
    n += chunk.length;
  }
  await f.done;
  if (n !== f.size) throw new SandboxError("UNAVAILABLE", "file stream truncated");
  return out;
}

/** Writes a file of the sandbox (parent dirs created; an existing file is truncated, keeps its mode). */
export async function writeGuestFile(sb: Sandbox, guestPath: string, data: Buffer): Promise<void> {
  const p = checkGuestPath(guestPath);
  if (data.length > MAX_FILE_BYTES) {
    throw new SandboxError("TOO_LARGE", `${data.length} bytes exceeds the limit of ${MAX_FILE_BYTES} bytes`);
  }
  checkRunning(sb);
  sb.touch();
  const s = expectStream(sb);
  s.stream.then(
    (sock) => sock.end(data),
    () => {},
  );
  try {
    await request(sb, { op: "writeFile", path: p, token: s.token, size: data.length });
  } finally {
    s.cancel();
    sb.touch();
  }
}
