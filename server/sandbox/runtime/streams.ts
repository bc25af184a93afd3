// The byte streams between the host and a sandbox's agent (control.ts): the newline-delimited
// control messages the agent writes, and a file stream's "<size>\n" header and exactly that many
// bytes after it. Everything the agent says is untrusted, so each is bounded.
import type * as net from "node:net";
import { Readable } from "node:stream";

import { SandboxError } from "./errors.ts";

/**
 * Longest control message accepted from a sandbox (an exec reply carries up to 2 x 4 MiB
 * of output in base64). Everything the agent says is untrusted: root in the sandbox can
 * ptrace the agent, so the host bounds and validates it all.
 */
const MAX_CONTROL_LINE = 32 * 1024 * 1024;

/** Reads the "<size>\n" a file stream starts with; the rest stays in the socket. */
export function readSizeLine(sock: net.Socket): Promise<{ size: number; sock: net.Socket }> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = () => {
      cleanup();
      sock.destroy();
      reject(new SandboxError("UNAVAILABLE", "file stream interrupted"));
    };
    const onReadable = () => {
      for (let b = sock.read() as Buffer | null; b !== null; b = sock.read() as Buffer | null) {
        head = Buffer.concat([head, b]);
        const nl = head.indexOf(10);
        if (nl === -1 && head.length > 24) return fail();
        if (nl === -1) continue;
        cleanup();
        const rest = head.subarray(nl + 1);
        if (rest.length) sock.unshift(rest);
        const text = head.toString("latin1", 0, nl);
        resolve({ size: /^\d{1,15}$/.test(text) ? Number(text) : -1, sock });
        return;
      }
    };
    const cleanup = () => {
      sock.off("readable", onReadable);
      sock.off("end", fail);
      sock.off("close", fail);
    };
    sock.on("readable", onReadable);
    sock.once("end", fail);
    sock.once("close", fail);
  });
}

/** Passes on exactly `size` bytes of a socket; errors if it ends early. */
export class BoundedStream extends Readable {
  private left: number;
  private readonly sock: net.Socket;

  constructor(sock: net.Socket, size: number) {
    super();
    this.sock = sock;
    this.left = size;
    if (size === 0) {
      this.push(null);
      sock.destroy();
      return;
    }
    sock.on("data", (b: Buffer) => {
      if (this.left <= 0) return;
      const part = b.length > this.left ? b.subarray(0, this.left) : b;
      this.left -= part.length;
      if (!this.push(part)) sock.pause();
      if (this.left === 0) {
        this.push(null);
        sock.destroy();
      }
    });
    const early = () => {
      if (this.left > 0) this.destroy(new SandboxError("UNAVAILABLE", "file stream interrupted"));
    };
    sock.on("end", early);
    sock.on("close", early);
  }

  override _read(): void {
    this.sock.resume();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    this.sock.destroy();
    cb(err);
  }
}

/** Calls onLine for each "\n"-terminated line of a stream; onOverflow if a line gets too long. */
export function onLines(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onOverflow: () => void,
): void {
  let parts: Buffer[] = [];
  let size = 0;
  input.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString("utf8");
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_CONTROL_LINE) {
        parts = [];
        size = 0;
        onOverflow();
      }
    }
  });
}
