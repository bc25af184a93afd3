/**
 * `cws logs`, `events`, `exec`, `reboot` and `list` against the reference server: in-process
 * (cli/cws-command.ts's day2Command) for what they print, and the real `cws` (bin/cws) for what a
 * shell sees: an exit status passed through from a sandbox, a follow ended by Ctrl-C, the help.
 * One org for the file: a RENTAL workload that was redeployed (a previous container), a VM, a
 * sandbox (a real bubblewrap one) and a volume.
 */
import { spawn } from "node:child_process";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { day2Command } from "../../cli/cws-command.ts";
import { CwsClient } from "../../client/index.ts";
import { DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { createVolume, deployed, rental, vm, waitForStatus } from "../server/fixtures.ts";
import { deploySandbox } from "../server/sandbox/fixtures.ts";

const BIN = fileURLToPath(new URL("../../bin/cws", import.meta.url));

describe("cws commands on an org's workloads", () => {
  // A reboot stays provisioning long enough for its progress to say so.
  const server = useTestServer({ provisionDelayMs: 300 });
  const env = (more: Record<string, string | undefined> = {}) => ({
    PATH: process.env.PATH,
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
    ...more,
  });
  /** `cws <command> ...args` in this process: exit status and what it printed. */
  const cws = async (args: string[], more: Record<string, string | undefined> = {}) => {
    let stdout = "";
    let stderr = "";
    const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
    const code = await day2Command(args[0]!, args.slice(1), io, env(more));
    return { code, stdout, stderr };
  };
  /** The real `cws`, for what a shell sees. */
  const bin = async (args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(BIN, args, { env: env() });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  let client: CwsClient;
  let web: string;
  let box: string;
  let machine: string;
  let volume: string;

  beforeAll(async () => {
    client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
    [web, machine, box, volume] = await Promise.all([
      deployed(server, rental({ name: "web" })).then((w: { uid: string }) => w.uid),
      deployed(server, vm({ name: "build-vm" })).then((w: { uid: string }) => w.uid),
      deploySandbox(server, { name: "dev-box" }),
      createVolume(server, "data", 64),
    ]);
    // A redeploy: the container before it is the previous one.
    await client.workloads.update(web, { image: "nginx:1.28" });
    await waitForStatus(server, web, "running");
  }, 60_000);

  it("list: every kind as a table, one kind with its filters, as JSON", async () => {
    const all = await cws(["list"]);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+UID\s+DETAIL\s+CREATED$/);
    expect(lines.find((l) => l.includes(web))).toMatch(/^Workload\s+web\s+wl-\S+\s+RENTAL, running\s+\d{4}-/);
    expect(lines.find((l) => l.includes(box))).toMatch(/^Sandbox\s+dev-box\s/);
    expect(lines.find((l) => l.includes(volume))).toMatch(/^Volume\s+data\s/);
    // Not the platform's templates, which no org manages.
    expect(all.stdout).not.toContain("tpl-ubuntu");

    const vms = await cws(["list", "workload", "--type", "VM", "--json"]);
    expect(vms.code, vms.stderr).toBe(0);
    expect(JSON.parse(vms.stdout)).toEqual([
      {
        kind: "Workload",
        uid: machine,
        name: "build-vm",
        createdAt: expect.any(String),
        summary: "VM, running",
      },
    ]);
    const byName = JSON.parse((await cws(["list", "Workload", "--name", "web", "--json"])).stdout);
    expect(byName.map((l: { uid: string }) => l.uid)).toEqual([web]);
    const sandboxes = JSON.parse((await cws(["list", "sandbox", "--status", "running", "--json"])).stdout);
    expect(sandboxes.map((l: { uid: string }) => l.uid)).toEqual([box]);
    expect((await cws(["list", "ssh-key"])).stdout).toBe("nothing found in org 'demo'\n");

    const usage = async (args: string[], message: string) => {
      const r = await cws(["list", ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    };
    await usage(["Bucket"], "KIND must be one of SshKey, Volume, Sandbox");
    await usage(["Workload", "--type", "GPU"], "--type: type must be one of RENTAL, VM, BM");
    await usage(
      ["Volume", "--status", "running"],
      "--status is not a filter of Volume: its filters are --workload-uid",
    );
    await usage(["--status", "running"], "filters need a KIND (--status)");
  });

  it("logs: the tail, the previous container, JSON lines", async () => {
    const tail = await cws(["logs", web, "--tail", "1"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout.trimEnd().split("\n")).toHaveLength(1);
    const current = await cws(["logs", web]);
    expect(current.stdout).toContain("nginx:1.28");
    const previous = await cws(["logs", web, "--previous"]);
    expect(previous.stdout).toContain("nginx:1.27");
    expect(previous.stdout).not.toContain("nginx:1.28");
    const json = await cws(["logs", web, "--tail", "2", "--json"]);
    const lines = json.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as string);
    expect(lines).toEqual(current.stdout.trimEnd().split("\n").slice(-2));
    const usage = await cws(["logs", web, "--tail", "many"]);
    expect(usage).toMatchObject({ code: 2, stdout: "" });
    expect(usage.stderr).toContain("--tail must be an integer of at least 0 (got 'many')");
  });

  it("logs --follow streams until Ctrl-C, which ends it cleanly", async () => {
    const uid = ((await deployed(server, rental({ name: "tail-me" }))) as { uid: string }).uid;
    const child = spawn(BIN, ["logs", uid, "--follow"], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const look = () => out.includes(text) && resolve();
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          look();
        });
        look();
      });
    await seen("listening on");
    // A line the workload prints while it is followed.
    await client.workloads.suspend(uid);
    await seen("runtime resources removed");
    child.kill("SIGINT");
    expect(await exited, err).toBe(0);
    expect(err).toBe("");
  });

  it("events: every event as a table or as the service's records", async () => {
    const table = await cws(["events", web]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+EVENT\s+REASON\s+STATUS\s+EXIT\s+MESSAGE$/);
    expect(lines[1]).toMatch(/^\S+Z\s+CREATED\s+Registered\s+registered\s+workload web registered$/);
    const json = JSON.parse((await cws(["events", web, "--json"])).stdout) as { workload_uid: string }[];
    expect(json.length).toBe(lines.length - 1);
    expect(new Set(json.map((e) => e.workload_uid))).toEqual(new Set([web]));
  });

  it("exec: a RENTAL workload's output; a sandbox's exit status is cws's own", async () => {
    const r = await cws(["exec", web, "--", "echo", "hello", "world"]);
    expect(r).toEqual({ code: 0, stdout: "hello world\n", stderr: "" });
    const sandbox = await bin(["exec", box, "--", "sh", "-c", "echo out; echo 'it''s err' >&2; exit 7"]);
    expect(sandbox).toEqual({ code: 7, stdout: "out\n", stderr: "its err\n" });
    const json = await cws(["exec", box, "--json", "--", "sh", "-c", "printf '%s' \"$0\"", "a b"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ stdout: "a b", stderr: "", code: 0, timed_out: false });
    const late = await cws(["exec", box, "--timeout", "1", "--", "sleep", "5"]);
    expect(late.code).toBe(124);
    expect(late.stderr).toContain("did not end within its timeout");

    const wrong = await cws(["exec", machine, "--", "ls"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `cws exec: ${machine} is a VM workload: cws exec runs commands in RENTAL workloads and sandboxes (a VM's console: cws logs ${machine})\n`,
    );
    const noCommand = await cws(["exec", web]);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain("exec needs a command after the uid: cws exec UID -- COMMAND");
  });

  it("reboot: a VM, waited for with progress, adds one reboot event; another type is refused", async () => {
    const reboots = async () =>
      (await client.workloads.events(machine, { limit: 500 })).items.filter((e) => e.reason === "Reboot")
        .length;
    const before = await reboots();
    const r = await cws(["reboot", machine]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^UID\\s+NAME\\s+TYPE\\s+STATUS\\n${machine}\\s+build-vm\\s+VM\\s+running\\n$`),
    );
    expect(r.stderr).toMatch(/^cws reboot: build-vm: provisioning 0\/1 ready: (Reboot: )?rebooting\n/);
    // The last line says running; its newest event may be read a poll later.
    expect(r.stderr).toMatch(/cws reboot: build-vm: running 1\/1 ready(: .*)?\n$/);
    expect(await reboots()).toBe(before + 1);

    for (const [uid, what] of [
      [web, "a RENTAL workload"],
      [box, "a sandbox"],
    ] as const) {
      const refused = await cws(["reboot", uid]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`cws reboot: ${uid} is ${what}: cws reboot reboots VM workloads only\n`);
    }
    expect(await reboots()).toBe(before + 1);
  });

  it("says plainly when the token is refused, the uid is unknown or a setting is missing", async () => {
    const secret = "tok-never-printed-9c2f";
    for (const args of [
      ["list"],
      ["logs", web],
      ["events", web],
      ["exec", web, "--", "ls"],
      ["reboot", machine],
    ]) {
      const r = await cws(args, { CWS_API_TOKEN: secret });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toBe(
        `cws ${args[0]}: the service refused the token for org 'demo' (invalid API token): check CWS_API_TOKEN and --org\n`,
      );
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    for (const args of [["logs"], ["events"], ["exec"], ["reboot"]]) {
      const r = await cws([...args, "wl-nope", ...(args[0] === "exec" ? ["--", "ls"] : [])]);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr).toBe(
        `cws ${args[0]}: no workload or sandbox 'wl-nope' in org 'demo' (cws list shows what the org has)\n`,
      );
    }
    const missing = await cws(["events", web], { CWS_API_TOKEN: undefined });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("the API token is missing: set CWS_API_TOKEN");
    const flag = await cws(["events", web, "--token", DEMO_TOKEN]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("the API token is read from CWS_API_TOKEN only, never from a flag");
    const otherOrg = await cws(["events", web, "--org", "other"]);
    expect(otherOrg.code).toBe(1);
    const noUid = await cws(["events"]);
    expect(noUid.code).toBe(2);
    expect(noUid.stderr).toContain("events needs the uid of a workload or sandbox");
  });

  it("cws --help lists the commands; each answers --help", async () => {
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    for (const c of ["list [KIND]", "logs UID", "events UID", "exec UID -- CMD...", "reboot UID"])
      expect(help.stdout).toContain(`  ${c}`);
    for (const c of ["list", "logs", "events", "exec", "reboot"]) {
      const r = await cws([c, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: cws ${c} `));
      expect(r.stdout).toContain("CWS_API_TOKEN");
    }
  });
});
