/**
 * The body-idle watch (server/http/bodies.ts) holds a request only while its body is arriving:
 * held until its next check, every create and patch outlived young-generation collections and
 * the server's heap grew under load (bench/README.md, "Reference server memory per workload").
 */
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { RequestBodies } from "../../server/http/bodies.ts";

/** A request with a body still on its way, as the request listener first sees it. */
function arriving() {
  const socket = Object.assign(new EventEmitter(), { bytesRead: 0, destroyed: false, isPaused: () => false });
  const req = Object.assign(new EventEmitter(), {
    headers: { "content-length": "10" },
    complete: false,
    readableEnded: false,
    destroyed: false,
    socket,
  });
  return { req, res: new EventEmitter() };
}

describe("the body-idle watch", () => {
  it("lets a request go as soon as its body has arrived, or its stream closed", () => {
    const bodies = new RequestBodies(10_000, () => {});
    const watched = (bodies as unknown as { watched: Set<unknown> }).watched;
    const a = arriving();
    const b = arriving();
    bodies.track(a.req as unknown as IncomingMessage, a.res as unknown as ServerResponse);
    bodies.track(b.req as unknown as IncomingMessage, b.res as unknown as ServerResponse);
    expect(watched.size).toBe(2);
    a.req.emit("end");
    expect(watched.size).toBe(1);
    b.req.emit("close");
    expect(watched.size).toBe(0);
    bodies.close();
  });
});
