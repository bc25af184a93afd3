/**
 * The front ends' gRPC server (provider/frontend/grpc-server.ts) as a gRPC client meets it: unary
 * calls, server streams sent message by message and ended by status OK or by the handler's error
 * (in the trailers once messages went out), a cancelled stream ending the handler's iteration,
 * a slow reader holding the handler back, and client streams left UNIMPLEMENTED.
 */
import * as grpc from "@grpc/grpc-js";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GrpcServer,
  Status,
  StatusError,
  type CallInfo,
  type GrpcHandler,
  type GrpcMethod,
} from "../../../provider/frontend/grpc-server.ts";

/** Messages are UTF-8 text: the codec is not what is under test. */
const text = {
  requestDeserialize: (b: Buffer) => b.toString("utf8"),
  responseSerialize: (v: unknown) => Buffer.from(String(v), "utf8"),
};
const METHODS: Record<string, GrpcMethod> = {
  Echo: { path: "/test.S/Echo", ...text },
  Count: { path: "/test.S/Count", responseStream: true, ...text },
  Upload: { path: "/test.S/Upload", requestStream: true, ...text },
};
const clientDef = (name: string, requestStream: boolean, responseStream: boolean) => ({
  path: `/test.S/${name}`,
  requestStream,
  responseStream,
  requestSerialize: (v: string) => Buffer.from(v, "utf8"),
  requestDeserialize: (b: Buffer) => b.toString("utf8"),
  responseSerialize: (v: string) => Buffer.from(v, "utf8"),
  responseDeserialize: (b: Buffer) => b.toString("utf8"),
});
const Client = grpc.makeGenericClientConstructor(
  {
    echo: clientDef("Echo", false, false),
    count: clientDef("Count", false, true),
    upload: clientDef("Upload", true, false),
  },
  "S",
);

/** What the handlers saw, for the tests to look at. */
const seen = { yielded: 0, finished: false, aborted: false };

/** Count's request says what to stream: `N`, `N:fail`, `N:failFirst`, `big:N`, `forever`. */
async function* count(request: string, call: CallInfo): AsyncGenerator<string | Buffer> {
  seen.yielded = 0;
  seen.finished = false;
  seen.aborted = false;
  call.signal.addEventListener("abort", () => (seen.aborted = true));
  try {
    if (request.startsWith("big:")) {
      for (let i = 0; i < Number(request.slice(4)); i++) {
        seen.yielded++;
        yield Buffer.alloc(256 * 1024, 97);
      }
      return;
    }
    if (request === "forever") {
      for (let i = 0; ; i++) {
        seen.yielded++;
        yield String(i);
        await sleep(5);
      }
    }
    const [n, mode] = request.split(":");
    if (mode === "failFirst") throw new StatusError(Status.RESOURCE_EXHAUSTED, "no room to list");
    for (let i = 1; i <= Number(n); i++) {
      seen.yielded++;
      yield `message ${i}`;
      await sleep(1);
    }
    if (mode === "fail") throw new Error("the org went away after 3");
  } finally {
    seen.finished = true;
  }
}

const HANDLERS: Record<string, GrpcHandler> = {
  Echo: (req) => `echo ${String(req)}`,
  Count: (req, call) => (req === "list" ? ["a", "b"] : req === "none" ? 42 : count(String(req), call)),
  Upload: () => "never",
};

/** A server stream's messages and its end: the status and message it ended with. */
function streamed(client: grpc.Client, request: string) {
  return new Promise<{ messages: string[]; code: number; details: string }>((resolve) => {
    const messages: string[] = [];
    const call = (client as unknown as { count(r: string): grpc.ClientReadableStream<string> }).count(
      request,
    );
    call.on("data", (m: string) => messages.push(m));
    call.on("error", (e: grpc.ServiceError) => resolve({ messages, code: e.code, details: e.details }));
    call.on("status", (s: grpc.StatusObject) => {
      if (s.code === 0) resolve({ messages, code: 0, details: s.details });
    });
  });
}

describe("the front ends' gRPC server", () => {
  let server: GrpcServer;
  let client: grpc.Client;
  beforeAll(async () => {
    server = new GrpcServer({ maxMessageBytes: 1 << 20 });
    server.add(METHODS, HANDLERS);
    const port = await server.listen("127.0.0.1");
    client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });

  it("answers a unary call with one message", async () => {
    const res = await new Promise<string>((resolve, reject) =>
      (client as unknown as { echo(r: string, cb: (e: Error | null, r: string) => void): void }).echo(
        "hi",
        (e, r) => (e ? reject(e) : resolve(r)),
      ),
    );
    expect(res).toBe("echo hi");
  });

  it("streams each message the handler yields, in order, then status OK", async () => {
    const res = await streamed(client, "5");
    expect(res).toEqual({
      messages: ["message 1", "message 2", "message 3", "message 4", "message 5"],
      code: 0,
      details: "",
    });
    expect(seen.finished).toBe(true);
    expect(seen.aborted).toBe(false);
  });

  it("streams a plain iterable, and an empty stream ends with status OK", async () => {
    expect((await streamed(client, "list")).messages).toEqual(["a", "b"]);
    expect(await streamed(client, "0")).toMatchObject({ messages: [], code: 0 });
  });

  it("ends a stream with the handler's error after the messages it sent", async () => {
    const res = await streamed(client, "3:fail");
    expect(res.messages).toEqual(["message 1", "message 2", "message 3"]);
    expect(res.code).toBe(Status.UNKNOWN);
    expect(res.details).toBe("the org went away after 3");
  });

  it("answers with the error's own status when the stream fails before its first message", async () => {
    expect(await streamed(client, "3:failFirst")).toEqual({
      messages: [],
      code: Status.RESOURCE_EXHAUSTED,
      details: "no room to list",
    });
  });

  it("refuses a streaming handler that answers with no messages to stream", async () => {
    expect(await streamed(client, "none")).toMatchObject({ messages: [], code: Status.INTERNAL });
  });

  it("ends the handler's iteration and aborts its signal when the client cancels", async () => {
    const call = (client as unknown as { count(r: string): grpc.ClientReadableStream<string> }).count(
      "forever",
    );
    call.on("error", () => {});
    await new Promise<void>((resolve) => call.once("data", () => resolve()));
    call.cancel();
    await expect.poll(() => seen.finished, { timeout: 2000 }).toBe(true);
    expect(seen.aborted).toBe(true);
    const stoppedAt = seen.yielded;
    await sleep(50);
    expect(seen.yielded).toBe(stoppedAt);
  });

  it("does not run ahead of a client that stops reading", async () => {
    const call = (client as unknown as { count(r: string): grpc.ClientReadableStream<Buffer> }).count(
      "big:200",
    );
    call.on("error", () => {});
    await new Promise<void>((resolve) => call.once("data", () => resolve()));
    call.pause();
    await sleep(300);
    // 200 messages of 256 KiB: HTTP/2 flow control holds the handler far short of the end.
    expect(seen.yielded).toBeLessThan(100);
    let received = 1;
    call.on("data", () => received++);
    call.resume();
    await new Promise<void>((resolve) => call.on("end", () => resolve()));
    expect({ received, yielded: seen.yielded }).toEqual({ received: 200, yielded: 200 });
  });

  it("leaves a client-streaming method UNIMPLEMENTED", async () => {
    const err = await new Promise<grpc.ServiceError>((resolve) => {
      const call = (
        client as unknown as {
          upload(cb: (e: grpc.ServiceError | null) => void): grpc.ClientWritableStream<string>;
        }
      ).upload((e) => resolve(e!));
      call.write("x");
      call.end();
    });
    expect(err.code).toBe(Status.UNIMPLEMENTED);
  });
});
