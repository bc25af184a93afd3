/**
 * Sandbox benchmark through the HTTP API (typed client against an in-process reference server with
 * real bubblewrap sandboxes): deploy → running (median of 10), fork → running (median of 5) and the
 * exec round trip (median of 50). Run: node bench/sandbox-http.ts
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CwsClient } from "../client/index.ts";
import { bubblewrapStatus } from "../server/sandbox/runtime/index.ts";
import { startServer } from "../server/index.ts";

const status = bubblewrapStatus();
if (!status.available) {
  console.error(`sandbox HTTP bench skipped: ${status.reason}`);
  process.exit(1);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const since = (t0: number) => performance.now() - t0;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "cws-bench-http-"));
const server = await startServer({ port: 0, sandboxRoot: root });
const client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: "demo-token" });
/** Polls the state every 5 ms (not the client's growing interval), so that polling does not inflate the figure. */
async function waitRunning(uid: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const st = await client.workloads.state(uid);
    if (st.status === "running") return;
    if (st.status === "error" || Date.now() > deadline) throw new Error(`${uid}: ${st.status} ${st.message}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

try {
  const deploys: number[] = [];
  let parent = "";
  for (let i = 0; i < 10; i++) {
    const w = await client.workloads.create({
      type: "SANDBOX",
      name: `bench-${i}`,
      image: "tpl-ubuntu-headless",
    });
    const t0 = performance.now();
    await client.workloads.deploy(w.uid);
    await waitRunning(w.uid);
    deploys.push(since(t0));
    if (i === 0) parent = w.uid;
    else await client.workloads.delete(w.uid);
  }

  await client.sandboxes.exec(parent, {
    cmd: "head -c 20000000 /dev/urandom > /workspace/blob && mkdir -p /root/src && seq 1 2000 | xargs -I{} touch /root/src/f{}",
    timeout_sec: 120,
  });
  const forks: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const child = await client.sandboxes.fork(parent, { name: `bench-fork-${i}` });
    await waitRunning(child.uid);
    forks.push(since(t0));
    await client.workloads.delete(child.uid);
  }

  for (let i = 0; i < 5; i++) await client.sandboxes.exec(parent, { cmd: "true" }); // warm-up
  const execs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await client.sandboxes.exec(parent, { cmd: "echo hi" });
    execs.push(since(t0));
  }

  const rows: [string, number, number[]][] = [
    ["deploy → running", 10, deploys],
    ["fork (20 MB + 2000 files) → running", 5, forks],
    ["exec round trip (echo hi)", 50, execs],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(
    `${"what".padEnd(w)}  ${"n".padStart(3)}  ${"median".padStart(10)}  ${"min".padStart(10)}  ${"max".padStart(10)}`,
  );
  for (const [what, n, xs] of rows) {
    const f = (x: number) => `${x.toFixed(1)} ms`.padStart(10);
    console.log(
      `${what.padEnd(w)}  ${String(n).padStart(3)}  ${f(median(xs))}  ${f(Math.min(...xs))}  ${f(Math.max(...xs))}`,
    );
  }
} finally {
  await client.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
}
