/**
 * A server process for bench/server.ts: `ref [DATA_DIR]` runs the reference server, `bare
 * STATE_JSON CREATED_JSON` a bare node:http server answering GET with STATE_JSON and POST with
 * CREATED_JSON (the reference server's own answers, same headers). Reports its port over IPC
 * and answers "rss".
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../server/index.ts";

const mode = process.argv[2];

process.on("message", (m: unknown) => {
  if (m === "rss") {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.send!({ rss: m.rss, heapUsed: m.heapUsed });
  } else if (m === "exit") process.exit(0);
});

if (mode === "ref") {
  const dataDir = process.argv[3];
  const s = await startServer({ port: 0, provisionDelayMs: 300, dataDir: dataDir || undefined });
  process.send!({ port: s.port });
} else {
  const [state, created] = [process.argv[3]!, process.argv[4]!];
  const type = "application/json; charset=utf-8";
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        JSON.parse(Buffer.concat(chunks).toString());
        res.writeHead(201, { "content-type": type, "content-length": Buffer.byteLength(created) });
        res.end(created);
      });
      return;
    }
    res.writeHead(200, { "content-type": type, "content-length": Buffer.byteLength(state) });
    res.end(state);
  });
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
}
