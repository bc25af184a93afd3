/* eslint-disable @typescript-eslint/no-explicit-any */
// Regression tests of the server's failure modes found by probing it from outside: every
// case answers a clean 4xx with {error, reason} (or works), never a 5xx, an empty body,
// a silent hang, or an action on the wrong resource.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../server/store/store.ts";
import { call, expectError } from "../helpers/http.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { create, PUBLIC_KEY, rental, vm } from "./fixtures.ts";
import { deploySandbox, sb, sh } from "./sandbox/fixtures.ts";

interface RawRes {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One raw HTTP/1.1 exchange (nothing normalizes the request line, unlike fetch). */
function raw(port: number, request: string): Promise<RawRes> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    sock.on("data", (b) => chunks.push(b));
    sock.on("error", reject);
    sock.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
    sock.write(
      request.includes("Connection:")
        ? request
        : request.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
    );
  });
}

function expectJsonError(r: RawRes, status: number, reason?: string): any {
  expect(r.status, r.body).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(typeof body.error).toBe("string");
  expect(typeof body.reason).toBe("string");
  if (reason) expect(body.reason).toBe(reason);
  return body;
}

const AUTH = "Authorization: Bearer demo-token\r\n";

describe("routing and protocol errors", () => {
  const s = useTestServer();

  it("DELETE .../ssh-keys/%2e%2e is refused and does not delete the workload", async () => {
    const w = await create(s, rental());
    for (const seg of ["%2e%2e", "%2E%2e", "..", "%2e", "."]) {
      const r = await raw(
        s.port,
        `DELETE /v3/orgs/demo/workloads/${w.uid}/ssh-keys/${seg} HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`,
      );
      expectJsonError(r, 400, "INVALID_PATH");
    }
    expect((await call(s, "GET", `/orgs/demo/workloads/${w.uid}`)).status).toBe(200);
    const bad = await raw(s.port, `GET /v3/orgs/demo/workloads/%zz HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expectJsonError(bad, 400, "INVALID_PATH");
  });

  it("an h2c upgrade (curl --http2) is served as plain HTTP/1.1", async () => {
    const r = await raw(
      s.port,
      `GET /v3/orgs/demo/workloads HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n`,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toHaveProperty("items");
    const missing = await raw(
      s.port,
      `GET /v3/nowhere HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`,
    );
    expectJsonError(missing, 404, "ROUTE_NOT_FOUND");
  });

  it("a WebSocket upgrade of a REST route gets the REST answer; bad handshakes get JSON", async () => {
    const ws = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    const rest = await raw(
      s.port,
      `GET /v3/orgs/demo/workloads HTTP/1.1\r\nHost: x\r\n${AUTH}${ws}Sec-WebSocket-Version: 13\r\n\r\n`,
    );
    expect(rest.status).toBe(200);
    const none = await raw(
      s.port,
      `GET /v3/orgs/demo/nothing HTTP/1.1\r\nHost: x\r\n${AUTH}${ws}Sec-WebSocket-Version: 13\r\n\r\n`,
    );
    expectJsonError(none, 404, "ROUTE_NOT_FOUND");
    const version = await raw(
      s.port,
      `GET /v3/orgs/demo/workloads/x/terminals/term-1/ws HTTP/1.1\r\nHost: x\r\n${AUTH}${ws}Sec-WebSocket-Version: 8\r\n\r\n`,
    );
    expectJsonError(version, 426, "WEBSOCKET_HANDSHAKE_INVALID");
    expect(version.headers["sec-websocket-version"]).toBe("13");
  });

  it("requests the HTTP parser refuses get a JSON error", async () => {
    const r = await raw(s.port, "GET /v3/orgs HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expectJsonError(r, 400, "MALFORMED_REQUEST");
    const big = await raw(s.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expectJsonError(big, 431, "HEADERS_TOO_LARGE");
  });

  it("logs?follow=true sends its headers before the first line", async () => {
    const w = await create(s, rental());
    const ctl = new AbortController();
    const started = Date.now();
    const res = await fetch(`${s.baseUrl}/orgs/demo/workloads/${w.uid}/logs?follow=true`, {
      headers: { authorization: "Bearer demo-token" },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(Date.now() - started).toBeLessThan(5000);
    ctl.abort();
  });

  it("an SSH public key with a newline in its comment is refused", async () => {
    for (const k of [
      `${PUBLIC_KEY}\nssh-rsa AAAA second`,
      `${PUBLIC_KEY.replace("test@cws", "a\rb")}`,
      `${PUBLIC_KEY}\u0000`,
    ]) {
      expectError(
        await call(s, "POST", "/orgs/demo/ssh-keys", { name: "nl", ssh_key: k }),
        400,
        "SSH_KEY_INVALID",
      );
    }
    const blob = PUBLIC_KEY.split(" ")[1]!;
    const noPad = PUBLIC_KEY.replace(blob, blob.replace(/=+$/, "") + "A");
    expectError(
      await call(s, "POST", "/orgs/demo/ssh-keys", { name: "b64", ssh_key: noPad }),
      400,
      "SSH_KEY_INVALID",
    );
    expect((await call(s, "POST", "/orgs/demo/ssh-keys", { name: "ok", ssh_key: PUBLIC_KEY })).status).toBe(
      201,
    );
  });
});

describe("secrets and exposure", () => {
  it("--data-dir files are 0600 in a 0700 dir; passwords and tokens are not in the database in plain text", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "cws-data-"));
    const dataDir = path.join(parent, "data");
    try {
      const s = await startTestServer({ dataDir });
      await create(s, vm({ vm_config: { password: "hunter2-vm-password" } }));
      await create(
        s,
        rental({ registry_auth: { server: "r.example", username: "u", password: "registry-pass-xyz" } }),
      );
      await s.close();
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const f of fs.readdirSync(dataDir)) {
        expect(fs.statSync(path.join(dataDir, f)).mode & 0o777, f).toBe(0o600);
      }
      const db = fs.readFileSync(path.join(dataDir, "cws.sqlite"));
      const wal = fs.existsSync(path.join(dataDir, "cws.sqlite-wal"))
        ? fs.readFileSync(path.join(dataDir, "cws.sqlite-wal"))
        : Buffer.alloc(0);
      for (const secret of ["hunter2-vm-password", "registry-pass-xyz", "demo-token"]) {
        expect(db.includes(secret) || wal.includes(secret), secret).toBe(false);
      }
      // The same key reads them back (a restart keeps working) ...
      const s2 = await startTestServer({ dataDir });
      expect((await call(s2, "GET", "/orgs/demo/workloads")).body.items.length).toBe(2);
      await s2.close();
      // ... another key cannot.
      fs.writeFileSync(path.join(parent, "other.key"), Buffer.alloc(32, 7).toString("base64"));
      expect(() => new Store(dataDir, { keyFile: path.join(parent, "other.key") })).toThrow(/cannot decrypt/);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("a non-loopback host refuses the built-in tokens unless told otherwise", async () => {
    await expect(startTestServer({ host: "0.0.0.0" })).rejects.toThrow(
      /demo API tokens.*--seed.*admin token.*--allow-demo-tokens/s,
    );
    const ok = await startTestServer({ host: "0.0.0.0", allowDemoTokens: true });
    await ok.close();
    const seeded = await startTestServer({
      host: "0.0.0.0",
      adminToken: "a-long-admin-secret",
      seed: { orgs: [{ slug: "acme", tokens: ["acme-secret-token"], credits: 10 }] } as any,
    }).catch((e: Error) => e);
    if (seeded instanceof Error) expect(seeded.message).not.toMatch(/demo API tokens|admin token/);
    else await seeded.close();
    const loop = await startTestServer({ host: "127.0.0.1" });
    await loop.close();
  });

  it("cws serve says so on a non-loopback host", async () => {
    const cli = path.join(import.meta.dirname, "../../cli/cws.ts");
    const out = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const p = spawn(process.execPath, [cli, "serve", "--host", "0.0.0.0", "--port", "0"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      p.stderr.on("data", (b) => (err += b));
      p.on("close", (code) => resolve({ code, err }));
    });
    expect(out.code).not.toBe(0);
    expect(out.err).toMatch(/refusing to serve on 0\.0\.0\.0/);
  });
});

describe("files and terminals of a real sandbox", () => {
  const s = useTestServer();
  let uid: string;
  beforeAll(async () => {
    uid = await deploySandbox(s);
  });

  it("client mistakes in the files API are 4xx with a reason, not 502", async () => {
    expect(
      (await call(s, "PUT", sb(uid, "files"), { path: "/workspace/plain", content_b64: "eA==" })).status,
    ).toBe(204);
    await sh(s, uid, "mkfifo /tmp/fifo");
    for (const p of [
      "/workspace/plain/below",
      "/tmp/fifo",
      "/proc/self/mem",
      "/proc/self/pagemap",
      "/dev/zero",
    ]) {
      const r = await call(s, "GET", `${sb(uid, "files")}?path=${encodeURIComponent(p)}`);
      expectError(r, 400, "WORKLOAD_SANDBOX_PATH_INVALID");
    }
    for (const p of ["/workspace/plain/below", "/tmp/fifo", "/proc/self/mem"]) {
      const r = await call(s, "PUT", sb(uid, "files"), { path: p, content_b64: "eA==" });
      expectError(r, 400, "WORKLOAD_SANDBOX_PATH_INVALID");
    }
  });

  it("a 64 MiB upload and download hold about one copy of the file in the server", async () => {
    // The server in a child process, so that its peak resident memory is its own.
    const served = await startTestServer({ subprocess: true });
    try {
      const id = await deploySandbox(served);
      const status = (k: string) =>
        Number(
          new RegExp(`${k}:\\s+(\\d+) kB`).exec(
            fs.readFileSync(`/proc/${served.process.pid}/status`, "utf8"),
          )![1],
        ) * 1024;
      const peakDuring = async (fn: () => Promise<void>): Promise<number> => {
        fs.writeFileSync(`/proc/${served.process.pid}/clear_refs`, "5"); // resets the peak (VmHWM)
        const before = status("VmRSS");
        await fn();
        return status("VmHWM") - before;
      };
      const MiB = 1024 * 1024;
      const data = Buffer.alloc(64 * MiB, 0x5a);
      data.write("head", 0);
      data.write("tail", data.length - 4);
      const body = JSON.stringify({ path: "/workspace/big.bin", content_b64: data.toString("base64") });
      const up = await peakDuring(async () => {
        const put = await call(served, "PUT", sb(id, "files"), undefined, {
          raw: body,
          headers: { "content-type": "application/json" },
        });
        expect(put.status, put.text).toBe(204);
      });
      expect(up).toBeLessThan(2 * data.length);
      expect((await sh(served, id, "stat -c %s /workspace/big.bin")).trim()).toBe(String(data.length));
      let text = "";
      const down = await peakDuring(async () => {
        const got = await call(served, "GET", `${sb(id, "files")}?path=/workspace/big.bin`);
        expect(got.status).toBe(200);
        text = got.text;
      });
      expect(down).toBeLessThan(32 * MiB);
      expect(Buffer.from(JSON.parse(text).content_b64, "base64").equals(data)).toBe(true);
      const pagemap = await peakDuring(async () => {
        const rs = await Promise.all(
          [1, 2, 3, 4].map(() => call(served, "GET", `${sb(id, "files")}?path=/proc/self/pagemap`)),
        );
        for (const r of rs) expectError(r, 400, "WORKLOAD_SANDBOX_PATH_INVALID");
      });
      expect(pagemap).toBeLessThan(16 * MiB);
    } finally {
      await served.close();
    }
  });

  it("opening a terminal while the sandbox is being deleted is not a 500", async () => {
    const other = await deploySandbox(s);
    const opens = [1, 2, 3].map(() => call(s, "POST", sb(other, "terminals"), {}));
    const del = call(s, "DELETE", sb(other));
    for (const r of await Promise.all(opens)) {
      expect(r.status, r.text).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.body.reason).toBe("string");
    }
    expect((await del).status).toBeLessThan(300);
  });
});
