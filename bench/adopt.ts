/**
 * `cws adopt` on an org of 200 objects (60 SSH keys, 60 volumes, 50 RENTAL workloads each with a
 * volume and a key, half of them deployed, 20 VMs, 5 sandboxes, 5 workload templates) made
 * through the API on the reference server (in this process): the wall time of the command alone,
 * as a user runs it (`bin/cws adopt`, a fresh process: start-up, listing, 200 reads, writing),
 * for both formats; median of the runs. No time is asserted anywhere: this is the figure.
 *
 * Run: node bench/adopt.ts [--runs 5]
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CwsClient } from "../client/index.ts";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { startServer } from "../server/index.ts";
import { median } from "./median.ts";

const i = process.argv.indexOf("--runs");
const RUNS = Number((i > 0 ? process.argv[i + 1] : undefined) ?? 5);
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx bench@cws";

const server = await startServer({ port: 0, provisionDelayMs: 20 });
const dir = mkdtempSync(join(tmpdir(), "cws-bench-adopt-"));
try {
  const c = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: "demo-token" });
  const n = (k: number) => String(k).padStart(3, "0");
  const keys = await Promise.all(
    Array.from(
      { length: 60 },
      async (_, k) => (await c.sshKeys.create({ name: `key-${n(k)}`, ssh_key: KEY })).uid,
    ),
  );
  const volumes = await Promise.all(
    Array.from(
      { length: 60 },
      async (_, k) =>
        (await c.volumes.create({ name: `vol-${n(k)}`, size_in_mb: 256, resource_name: "gpu-rental-small" }))
          .uid,
    ),
  );
  const rentals = await Promise.all(
    Array.from({ length: 50 }, async (_, k) => {
      const w = await c.workloads.create({
        type: "RENTAL",
        name: `web-${n(k)}`,
        image: "nginx:1.27",
        resource_name: "gpu-rental-small",
        envs: [{ name: "N", value: String(k) }],
        ports: [{ port: 8080 }],
        ssh_keys: [keys[k]!],
        volumes: [{ uid: volumes[k]!, mount_path: "/data" }],
        registry_auth:
          k % 10 === 0 ? { server: "r.example.com", username: "u", password: "secret" } : undefined,
      });
      if (k % 2 === 0) await c.workloads.deploy(w.uid);
      return w.uid;
    }),
  );
  await Promise.all(
    Array.from({ length: 20 }, (_, k) =>
      c.workloads.create({
        type: "VM",
        name: `vm-${n(k)}`,
        image: "ubuntu-22.04",
        resource_name: "vm-standard",
        vm_config: { password: "vm-secret" },
      }),
    ),
  );
  for (let k = 0; k < 5; k++) {
    const s = await c.workloads.create({
      type: "SANDBOX",
      name: `box-${n(k)}`,
      image: "tpl-ubuntu-headless",
    });
    await c.workloads.deploy(s.uid);
    await c.workloads.waitForStatus(s.uid, "running", { timeoutMs: 120_000 });
  }
  await Promise.all(
    Array.from({ length: 5 }, (_, k) =>
      c.templates.create({
        name: `tpl-${n(k)}`,
        type: "RENTAL",
        manifest: { type: "RENTAL", name: "web", image: "nginx:1.27", resource_name: "gpu-rental-small" },
      }),
    ),
  );
  for (const uid of rentals.filter((_, k) => k % 2 === 0))
    await c.workloads.waitForStatus(uid, "running", { timeoutMs: 120_000 });

  const env = {
    ...process.env,
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: "demo-token",
  };
  // Asynchronous: the server answers from this very process.
  const run = (format: string) =>
    new Promise<{ ms: number; objects: number }>((resolve, reject) => {
      const out = join(dir, `adopted.${format}`);
      const t = performance.now();
      execFile(
        join(REPO_ROOT, "bin", "cws"),
        ["adopt", "--format", format, "--out", out],
        { env },
        (err, _stdout, stderr) => {
          const ms = performance.now() - t;
          if (err) return reject(new Error(`cws adopt --format ${format} failed: ${stderr}`));
          resolve({ ms, objects: Number(/(\d+) objects/.exec(stderr)?.[1] ?? 0) });
        },
      );
    });
  for (const format of ["pulumi", "tofu"]) {
    await run(format); // warms Node's compile cache and the server
    const times: number[] = [];
    let objects = 0;
    for (let r = 0; r < RUNS; r++) {
      const x = await run(format);
      times.push(x.ms);
      objects = x.objects;
    }
    console.log(
      `cws adopt --format ${format}: ${objects} objects in ${median(times).toFixed(0)} ms (median of ${RUNS}; min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
}
