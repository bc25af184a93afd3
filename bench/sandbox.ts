// Sandbox runtime benchmark: `node bench/sandbox.ts`.
// Prints the time from start() to ready, the fork time and the exec round trip (median
// over 50 runs), on real bubblewrap sandboxes in a temporary directory.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { bubblewrapStatus, SandboxRuntime } from "../server/sandbox/runtime/index.ts";

const status = bubblewrapStatus();
if (!status.available) {
  console.error(`sandbox bench skipped: ${status.reason}`);
  process.exit(1);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const fmt = (x: number) => `${x.toFixed(1)} ms`;

const rootDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-bench-"));
const rt = new SandboxRuntime({ rootDir });
try {
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    await rt.start(`start-${i}`, { hostname: `bench-${i}`, desktop: false });
    starts.push(ms(t0));
    if (i > 0) await rt.destroy(`start-${i}`);
  }

  const id = "start-0";
  await rt.exec(
    id,
    "head -c 20000000 /dev/urandom > /workspace/blob && mkdir -p /root/src && seq 1 2000 | xargs -I{} touch /root/src/f{}",
    60,
  );
  const forks: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    await rt.fork(id, `fork-${i}`, { hostname: `fork-${i}`, desktop: false });
    forks.push(ms(t0));
    await rt.destroy(`fork-${i}`);
  }

  for (let i = 0; i < 5; i++) await rt.exec(id, "true", 10); // warm-up
  const execs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = process.hrtime.bigint();
    await rt.exec(id, "echo hi", 10);
    execs.push(ms(t0));
  }

  const files: number[] = [];
  const data = Buffer.alloc(64 * 1024, 7);
  for (let i = 0; i < 20; i++) {
    const t0 = process.hrtime.bigint();
    await rt.writeFile(id, "/workspace/f.bin", data);
    await rt.readFile(id, "/workspace/f.bin");
    files.push(ms(t0));
  }

  const t0 = process.hrtime.bigint();
  await rt.start("desktop", { hostname: "bench-desktop", desktop: true });
  const sock = await rt.connectDesktop("desktop");
  await new Promise((r) => sock.once("data", r));
  const desktopMs = ms(t0);
  sock.destroy();

  const agentRss = (() => {
    const out: number[] = [];
    for (const name of fs.readdirSync("/proc")) {
      try {
        if (!/^\d+$/.test(name) || !fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes("/.cws/node"))
          continue;
        if (fs.readFileSync(`/proc/${name}/comm`, "utf8").trim() === "bwrap") continue;
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${name}/status`, "utf8"));
        if (m) out.push(Number(m[1]) / 1024);
      } catch {
        // gone
      }
    }
    return out;
  })();

  console.log(
    `start() to ready:        median ${fmt(median(starts))} (first ${fmt(starts[0])}, n=${starts.length})`,
  );
  console.log(`fork (20 MB + 2000 files): median ${fmt(median(forks))} (n=${forks.length})`);
  console.log(`exec round trip:         median ${fmt(median(execs))} (n=${execs.length})`);
  console.log(`64 KiB write+read:       median ${fmt(median(files))} (n=${files.length})`);
  console.log(`desktop start to RFB:    ${fmt(desktopMs)}`);
  if (agentRss.length) console.log(`agent RSS:               ${median(agentRss).toFixed(0)} MiB per sandbox`);
} finally {
  await rt.shutdown();
  fs.rmSync(rootDir, { recursive: true, force: true });
}
