/**
 * A server process for bench/server.ts: `ref` runs the reference server, `bare` a bare
 * node:http server answering the same JSON. Reports its port over IPC and answers "rss".
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../server/index.ts";

const mode = process.argv[2];
const dataDir = process.argv[3];

process.on("message", (m: unknown) => {
  if (m === "rss") {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ rss: process.memoryUsage().rss });
  } else if (m === "exit") process.exit(0);
});

if (mode === "ref") {
  const s = await startServer({ port: 0, provisionDelayMs: 300, dataDir: dataDir || undefined });
  process.send!({ port: s.port });
} else {
  const state = JSON.stringify({
    uid: "wl-0000000000000000",
    workload_type: "RENTAL",
    status: "registered",
    message: "registered, awaiting deploy",
    urls: [],
    ready_replicas: 0,
    total_replicas: 0,
    updated_at: new Date().toISOString(),
  });
  const created = JSON.stringify({
    uid: "wl-0000000000000000",
    type: "RENTAL",
    name: "bench",
    image: "nginx:1.27",
    cost_per_hour: 0.8,
    resource: {
      name: "gpu-rental-small",
      display_name: "1x L4",
      gpu_type: "NVIDIA L4",
      gpu_count: 1,
      vcpu: 8,
      memory: 32768,
      disk_size_mib: 102400,
      network_mode: "proxied",
    },
    revision: "abcdef1",
    volumes: [],
    state: {
      status: "registered",
      message: "registered, awaiting deploy",
      urls: [],
      ready_replicas: 0,
      total_replicas: 0,
    },
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  });
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        JSON.parse(Buffer.concat(chunks).toString());
        res.writeHead(201, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(created),
        });
        res.end(created);
      });
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(state) });
    res.end(state);
  });
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
}
