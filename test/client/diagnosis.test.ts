// A failed workload wait's diagnosis (client/diagnosis.ts, diagnosis-text.ts): the events and log
// lines on the error, secrets redacted, the bound of about 2 s, one line when it cannot be read,
// and the progress of a wait.
import { describe, expect, it } from "vitest";
import type { WorkloadCreate } from "../../api/index.ts";
import {
  CwsWaitTimeoutError,
  CwsWorkloadFailedError,
  DIAGNOSIS_LINE_MAX,
  formatDiagnosis,
  printable,
  redact,
  type WaitProgress,
} from "../../client/index.ts";
import { admin, DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { rejection, uniq, useTestClient } from "./fixtures.ts";

const server = useTestServer({ provisionDelayMs: 30, each: "clear-faults" });
const client = useTestClient(server);

const ENV_SECRET = "env-secret-9f8e7d";
const REGISTRY_PW = "registry-pw-1a2b3c";

const rental = (name: string): WorkloadCreate => ({
  type: "RENTAL",
  name,
  image: "ghcr.io/acme/api:1.4",
  resource_name: "cpu-rental-small",
  envs: [
    { name: "DB_PASSWORD", value: ENV_SECRET },
    { name: "MODE", value: "test" },
  ],
  registry_auth: { server: "ghcr.io", username: "ci", password: REGISTRY_PW },
});

async function failing(rule: Record<string, unknown>, body = rental(uniq("wl"))) {
  await admin(server, "POST", "/orgs/demo/provisioning", { name: body.name, delay_ms: 60, ...rule });
  const w = await client.workloads.create(body);
  await client.workloads.deploy(w.uid);
  return w.uid;
}

describe("redact", () => {
  it("replaces every secret, its URL and JSON forms, the longest first; short ones only as words", () => {
    expect(
      redact('pw=abcd1234 url=a%2Fb%3Dc json=q\\"x long', ["abcd1234", "a/b=c", 'q"x', "abcd1234 url"]),
    ).toBe("pw=[secret]=[secret] json=[secret] long");
    expect(redact("id=7 x7y ab-7 7", ["7"])).toBe("id=[secret] x7y ab-7 [secret]");
    expect(redact("nothing", [""])).toBe("nothing");
  });
});

describe("printable", () => {
  it("drops colours and control characters and cuts a long line", () => {
    expect(printable("\u001b[31mERROR\u001b[0m\tbad\rline\u0007")).toBe("ERROR\tbad line ");
    const long = printable("x".repeat(2_000));
    expect(long).toHaveLength(DIAGNOSIS_LINE_MAX);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("formatDiagnosis", () => {
  it("says the status, the events oldest first with exit codes, the log lines and how to get more", () => {
    const text = formatDiagnosis({
      uid: "wl-1",
      status: "error",
      message: "container exited",
      readyReplicas: 0,
      totalReplicas: 0,
      events: [
        { at: "T1", reason: "Started", message: "started container web" },
        { at: "T2", reason: "Error", message: "container web exited with code 3", exitCode: 3 },
      ],
      logs: ["T1 booting", "T2 fatal: no config"],
      logsOf: "previous",
      more: ["cws logs wl-1 --tail 200 --previous", "cws events wl-1", "GET u/logs?tail=200&previous=true"],
    });
    expect(text.split("\n")).toEqual([
      "  last status: error (0/0 ready): container exited",
      "  last events of this deployment (oldest first):",
      "    T1  Started  started container web",
      "    T2  Error    container web exited with code 3 (exit code 3)",
      "  last 2 log lines of the previous container, before its restart:",
      "    T1 booting",
      "    T2 fatal: no config",
      "  more: cws logs wl-1 --tail 200 --previous ; cws events wl-1 ; GET u/logs?tail=200&previous=true",
    ]);
  });
});

describe("workloads.waitForStatus: the diagnosis of a failed wait", () => {
  it("an exit: the failing event with its exit code, the last log line, secrets of every kind redacted", async () => {
    const uid = await failing({
      failure: "exit",
      exit_code: 4,
      logs: [
        "db password {env:DB_PASSWORD}",
        "registry {registry_password}",
        `token ${DEMO_TOKEN}`,
        "fatal: cannot connect",
      ],
    });
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", {
        timeoutMs: 10_000,
        secrets: [ENV_SECRET, REGISTRY_PW],
      }),
      CwsWorkloadFailedError,
    );
    const d = e.diagnosis!;
    expect(d.events.at(-1)).toMatchObject({ reason: "ContainerFailed", exitCode: 4 });
    expect(d.events.find((x) => x.reason === "Error")?.exitCode).toBe(4);
    expect(d.events.every((x) => x.reason !== "Registered")).toBe(true); // this deployment only
    expect(d.logs.at(-1)).toMatch(/fatal: cannot connect$/);
    expect(d.logs.join("\n")).toContain("db password [secret]");
    expect(d.logs.join("\n")).toContain(`token [secret]`);
    for (const s of [ENV_SECRET, REGISTRY_PW, DEMO_TOKEN]) expect(e.message).not.toContain(s);
    expect(e.message.split("\n")[0]).toMatch(
      new RegExp(
        `^workload ${uid} became error while waiting for running: container wl-\\d+ exited with code 4$`,
      ),
    );
    expect(e.message).toContain("(exit code 4)");
    expect(e.message).toContain(
      `more: cws logs ${uid} --tail 200 ; cws events ${uid} ; GET ${server.baseUrl}/orgs/demo/workloads/${uid}/logs?tail=200 ; GET ${server.baseUrl}/orgs/demo/workloads/${uid}/events`,
    );
  });

  it("a crash loop: the previous container's lines when the current one printed nothing", async () => {
    const uid = await failing({ failure: "crash_loop", restarts: 2, logs: ["boot", "panic: nil map"] });
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", { timeoutMs: 10_000 }),
      CwsWorkloadFailedError,
    );
    expect(e.diagnosis!.logsOf).toBe("previous");
    expect(e.diagnosis!.logs.at(-1)).toMatch(/panic: nil map$/);
    expect(e.message).toContain("log lines of the previous container, before its restart");
    expect(e.message).toContain(`more: cws logs ${uid} --tail 200 --previous ; cws events ${uid} ;`);
    expect(e.message).toContain("logs?tail=200&previous=true");
  });

  it("keeps at most 10 events and 20 log lines, the newest", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const uid = await failing({ failure: "crash_loop", restarts: 8, logs: lines });
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", { timeoutMs: 10_000 }),
      CwsWorkloadFailedError,
    );
    expect(e.diagnosis!.events).toHaveLength(10);
    expect(e.diagnosis!.events.at(-1)?.reason).toBe("CrashLoopBackOff");
    expect(e.diagnosis!.logs).toHaveLength(20);
    expect(e.diagnosis!.logs[0]).toMatch(/ line 11$/);
  });

  it("at the deadline: the last status and message, the events and lines so far", async () => {
    const uid = await failing({ failure: "never_ready", delay_ms: 40 });
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", { timeoutMs: 600 }),
      CwsWaitTimeoutError,
    );
    expect(e.message).toMatch(/last status: provisioning \(0\/1 ready\): deploying revision/);
    expect(e.message).toMatch(/Unhealthy +readiness probe failed: connection refused/);
    expect(e.message).toMatch(/waiting for database at db:5432 \(attempt 2\)/);
  });

  it("bounded: a diagnosis the service does not answer in time is one line, within about 2 s", async () => {
    const uid = await failing({ failure: "image_pull" });
    await admin(server, "POST", "/faults", {
      method: "GET",
      path: `/workloads/${uid}/(events|logs)`,
      count: 10,
      latency_ms: 10_000,
    });
    const t0 = Date.now();
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", { timeoutMs: 10_000 }),
      CwsWorkloadFailedError,
    );
    const took = Date.now() - t0;
    expect(took).toBeLessThan(4_000);
    expect(e.message.split("\n")[0]).toContain("could not be pulled");
    expect(e.diagnosis!.unavailable).toMatch(
      /^the diagnosis could not be read in full \(events: .*; logs: .*\)$/,
    );
  });

  it("refused (429): the error still comes, saying why the diagnosis could not be read", async () => {
    const uid = await failing({ failure: "image_pull" });
    await admin(server, "POST", "/faults", {
      method: "GET",
      path: `/workloads/${uid}/(events|logs)`,
      count: 100,
      status: 429,
      retry_after_sec: 30,
    });
    const e = await rejection(
      client.workloads.waitForStatus(uid, "running", { timeoutMs: 10_000 }),
      CwsWorkloadFailedError,
    );
    expect(e.message).toMatch(
      /the diagnosis could not be read in full \(events: 429 [A-Z_]+; logs: 429 [A-Z_]+\)/,
    );
  });

  it("progress: the newest event's reason and message and the replicas, each change once", async () => {
    const uid = await failing({ failure: "exit", delay_ms: 400 });
    const seen: WaitProgress[] = [];
    await rejection(
      client.workloads.waitForStatus(uid, "running", {
        timeoutMs: 10_000,
        pollMs: 20,
        onProgress: (p) => seen.push(p),
        secrets: [ENV_SECRET],
      }),
      CwsWorkloadFailedError,
    );
    // Each poll says the newest event: the reasons said follow the deployment's, in order.
    const order = ["Deploy", "Pulling", "Pulled", "Started", "Error", "ContainerFailed"];
    const reasons = seen.map((p) => p.reason!);
    expect(reasons.length).toBeGreaterThanOrEqual(2);
    expect(reasons.map((r) => order.indexOf(r))).toEqual(
      [...reasons.map((r) => order.indexOf(r))].sort((a, b) => a - b),
    );
    expect(reasons.every((r) => order.includes(r))).toBe(true);
    expect(new Set(seen.map((p) => JSON.stringify(p))).size).toBe(seen.length);
    expect(seen[0]).toMatchObject({ status: "provisioning", readyReplicas: 0, totalReplicas: 1 });
  });
});
