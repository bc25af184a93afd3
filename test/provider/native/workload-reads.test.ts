// The lookups that read what happened to a workload (getWorkload, getWorkloadEvents,
// getWorkloadLogs) over the client, against failures staged on the reference server: the events
// and log lines of a failed workload with every secret redacted, a workload by uid and by name as
// the Workload resource shows it, and bad arguments named with their rule.
import { describe, expect, it } from "vitest";
import type { WorkloadCreate } from "../../../api/index.ts";
import {
  getWorkload,
  getWorkloadEvents,
  getWorkloadLogs,
  lookup,
} from "../../../provider/resources/functions/controller.ts";
import { RESOURCES } from "../../../provider/registry.ts";
import { uniq, useTestClient } from "../../client/fixtures.ts";
import { admin, DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";

const server = useTestServer({ provisionDelayMs: 30 });
const client = useTestClient(server);

const ENV_SECRET = "env-secret-5d1c0b";
const REGISTRY_PW = "registry-pw-8e4f2a";
const VM_PW = "vm-pw-77b1e3";
const SECRETS = [ENV_SECRET, REGISTRY_PW, VM_PW, DEMO_TOKEN];

const rental = (name: string): WorkloadCreate => ({
  type: "RENTAL",
  name,
  image: "ghcr.io/acme/api:1.4",
  resource_name: "gpu-rental-small",
  envs: [{ name: "DB_PASSWORD", value: ENV_SECRET }],
  registry_auth: { server: "ghcr.io", username: "ci", password: REGISTRY_PW },
});

/** A workload deployed under a staged failure, once it is in error. */
async function failed(body: WorkloadCreate, rule: Record<string, unknown>): Promise<string> {
  await admin(server, "POST", "/orgs/demo/provisioning", { name: body.name, delay_ms: 30, ...rule });
  const { uid } = await client.workloads.create(body);
  await client.workloads.deploy(uid);
  await client.workloads.waitForStatus(uid, "error", { timeoutMs: 10_000, diagnose: false });
  return uid;
}

const noSecret = (value: unknown) => {
  const text = JSON.stringify(value);
  for (const s of SECRETS) expect(text, `${s.slice(0, 6)}… shown`).not.toContain(s);
};

describe("reading what happened to a failed workload", () => {
  it("returns its events and log lines, the current and the previous container's, secrets redacted", async () => {
    const uid = await failed(rental(uniq("loop")), {
      failure: "crash_loop",
      restarts: 2,
      exit_code: 2,
      message: "back-off pulling with ci/{registry_password}",
      logs: [
        `calling the API with token ${DEMO_TOKEN}`,
        "db password {env:DB_PASSWORD}, registry {registry_password}",
        "panic: assignment to entry in nil map",
      ],
    });
    const redact = [REGISTRY_PW];

    const { events } = (await getWorkloadEvents(client, { uid, redact })) as { events: Props[] };
    expect(events.length).toBeGreaterThan(2);
    expect(events.every((e) => e.workloadUid === uid)).toBe(true);
    const backOff = events.find((e) => e.reason === "BackOff");
    expect(backOff?.exitCode).toBe(2);
    expect(events.map((e) => e.createdAt)).toEqual(events.map((e) => e.createdAt).sort());
    noSecret(events);

    const previous = (await getWorkloadLogs(client, { uid, previous: true, redact })) as { lines: string[] };
    expect(previous.lines).toEqual(
      expect.arrayContaining([
        expect.stringContaining("calling the API with token [secret]"),
        expect.stringContaining("db password [secret], registry [secret]"),
        expect.stringContaining("panic: assignment to entry in nil map"),
      ]),
    );
    noSecret(previous);
    const last = (await getWorkloadLogs(client, { uid, previous: true, tail: 1, redact })) as {
      lines: string[];
    };
    expect(last.lines).toHaveLength(1);
    expect(last.lines[0]).toContain("panic: assignment to entry in nil map");
    // The registry password is never returned by the service: only `redact` can name it.
    const untold = (await getWorkloadLogs(client, { uid, previous: true })) as { lines: string[] };
    expect(untold.lines.join("\n")).toContain(`registry ${REGISTRY_PW}`);
    expect(untold.lines.join("\n")).not.toContain(ENV_SECRET);
    const later = (await getWorkloadLogs(client, { uid, previous: true, since: "2999-01-01T00:00:00Z" })) as {
      lines: string[];
    };
    expect(later.lines).toEqual([]);
  });

  it("redacts a VM's password from its serial console when told it", async () => {
    const uid = await failed(
      {
        type: "VM",
        name: uniq("vm"),
        image: "ubuntu-22.04",
        resource_name: "vm-standard",
        vm_config: { password: VM_PW },
      },
      { failure: "vm_boot", logs: ["cloud-init: setting the password {vm_password}"] },
    );
    const { lines } = (await getWorkloadLogs(client, { uid, redact: [VM_PW] })) as { lines: string[] };
    expect(lines.join("\n")).toContain("setting the password [secret]");
    noSecret(lines);
  });
});

type Props = Record<string, unknown>;

describe("getWorkload", () => {
  it("reads a workload by uid or by name, as the Workload resource's read shows it", async () => {
    const name = uniq("pull");
    const uid = await failed(rental(name), {
      failure: "image_pull",
      message: "pull access denied (tried ci/{registry_password}, env {env:DB_PASSWORD})",
    });
    const byUid = await getWorkload(client, { uid, redact: [REGISTRY_PW] });
    expect(await getWorkload(client, { name, redact: [REGISTRY_PW] })).toEqual(byUid);
    const read = await RESOURCES.Workload!.read({ client, log: () => undefined }, uid, {});
    expect(byUid).toMatchObject({
      uid,
      name,
      type: "RENTAL",
      status: "error",
      resourceName: "gpu-rental-small",
      registryAuth: { server: "ghcr.io", username: "ci" },
      envs: [{ name: "DB_PASSWORD", value: ENV_SECRET }],
      createdAt: read!.outputs.createdAt,
      revision: read!.outputs.revision,
    });
    expect(byUid).not.toHaveProperty("deploy");
    expect(byUid.statusMessage).toMatch(/pull access denied \(tried ci\/\[secret\], env \[secret\]\)/);
  });

  it("names the input and the rule when the arguments or the name do not pick one workload", async () => {
    await expect(getWorkload(client, {})).rejects.toThrow("give exactly one of uid and name (neither given)");
    await expect(getWorkload(client, { uid: "x", name: "y" })).rejects.toThrow(
      "give exactly one of uid and name (both given)",
    );
    await expect(getWorkload(client, { name: "no-such-workload" })).rejects.toThrow(
      /^name: no live RENTAL, VM or BM workload of the org demo is named no-such-workload$/,
    );
    const twice = uniq("twice");
    const uids = [
      (await client.workloads.create(rental(twice))).uid,
      (await client.workloads.create(rental(twice))).uid,
    ];
    await expect(getWorkload(client, { name: twice })).rejects.toThrow(
      `name: 2 workloads are named ${twice} (${uids.join(", ")}); give one's uid instead`,
    );
    await expect(getWorkload(client, { uid: "wl-nothing" })).rejects.toThrow(
      /^uid: .*no live workload wl-nothing/,
    );
    const box = await client.workloads.create({
      type: "SANDBOX",
      name: uniq("box"),
      image: "tpl-ubuntu-headless",
    });
    await expect(getWorkload(client, { uid: box.uid })).rejects.toThrow(
      `uid: workload ${box.uid} is a SANDBOX; getWorkload reads RENTAL, VM and BM workloads`,
    );
    expect(((await getWorkloadEvents(client, { uid: box.uid })) as { events: unknown[] }).events).not.toEqual(
      [],
    );
    await expect(getWorkloadEvents(client, { uid: "wl-nothing" })).rejects.toThrow(
      "uid: the org demo has no workload wl-nothing",
    );
    await expect(getWorkloadEvents(client, {})).rejects.toThrow("uid is required");
    await expect(lookup(client, "getWorkloadLogs", { uid: uids[0], tail: -1 })).rejects.toThrow(
      "tail: tail must be a non-negative integer",
    );
    await expect(lookup(client, "getWorkloadLogs", { uid: uids[0], since: "yesterday" })).rejects.toThrow(
      "since: since must be an RFC 3339 timestamp",
    );
  });
});
