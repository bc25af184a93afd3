import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectCommand } from "../../cli/cws-command.ts";
import { DEFAULT_SEED, type Seed } from "../../server/index.ts";
import { call as callApi } from "../helpers/http.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { rental } from "./fixtures.ts";

const BIN = fileURLToPath(new URL("../../bin/cws", import.meta.url));
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx t@cws";

/** `cws ...args` for resources, reset and seed, in-process, with only the given CWS_* variables. */
async function cws(args: string[], env: Record<string, string> = {}) {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith("CWS_")) delete process.env[k];
  Object.assign(process.env, env);
  let stdout = "";
  let stderr = "";
  try {
    const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
    const code = await inspectCommand(args[0]!, args.slice(1), io, "(help)\n");
    return { code, stdout, stderr };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** The real `cws` executable, for what a shell sees: output and exit status. */
async function bin(args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(BIN, args);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("cws commands next to Pulumi", () => {
  const server = useTestServer({ provisionDelayMs: 10, adminToken: "secret-admin" });
  let dir: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await callApi<{ uid: string }>(server, method, path, body);
    expect(res.status >= 200 && res.status < 300, `${method} ${path}`).toBe(true);
    return res.body;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cws-cli-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("resources lists what is alive in every org, as a table and as JSON; reset empties it", async () => {
    const target = ["--url", server.baseUrl, "--admin-token", "secret-admin"];
    expect((await cws(["resources", ...target])).stdout).toBe("nothing alive in any org (demo, other)\n");

    const key = await call("POST", "/orgs/demo/ssh-keys", { name: "deploy", ssh_key: KEY });
    const web = await call("POST", "/orgs/demo/workloads", rental({ ssh_keys: [key.uid] }));
    await call("POST", `/orgs/demo/workloads/${web.uid}/deploy`);
    await call("POST", "/orgs/demo/volumes", {
      name: "data",
      size_in_mb: 64,
      resource_name: "gpu-rental-small",
    });

    const table = await cws(["resources", ...target]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ORG\s+KIND\s+NAME\s+UID\s+STATUS\s+DETAIL$/);
    expect(lines).toHaveLength(4);
    const webLine = lines.find((l) => l.includes(web.uid))!;
    expect(webLine).toMatch(
      /^demo\s+workload\s+web\s+wl-\S+\s+(provisioning|running)\s+RENTAL gpu-rental-small \$0\.80\/h/,
    );
    expect(webLine).toContain(`http://${web.uid}-8080.rental.cws.local`);
    expect(lines.some((l) => /^demo\s+volume\s+data\s/.test(l))).toBe(true);
    expect(lines.some((l) => /^demo\s+ssh-key\s+deploy\s/.test(l))).toBe(true);

    const json = await cws(["resources", "--org", "demo", "--json", ...target]);
    const parsed = JSON.parse(json.stdout) as { workloads: { uid: string }[]; volumes: unknown[] };
    expect(parsed.workloads.map((w) => w.uid)).toEqual([web.uid]);
    expect(parsed.volumes).toHaveLength(1);
    expect((await cws(["resources", "--org", "other", ...target])).stdout).toBe(
      "nothing alive in org other\n",
    );

    // The environment works as the flags do: CWS_BASE_URL (with /v3) and CWS_ADMIN_TOKEN.
    const viaEnv = await cws(["reset", "--json"], {
      CWS_BASE_URL: server.baseUrl,
      CWS_ADMIN_TOKEN: "secret-admin",
    });
    expect(viaEnv).toMatchObject({ code: 0, stdout: '{"status":"reset"}\n' });
    expect((await cws(["resources", ...target])).stdout).toBe("nothing alive in any org (demo, other)\n");
  });

  it("says plainly when the server is not there or refuses the token", async () => {
    const refused = await bin(["resources", "--url", server.origin, "--admin-token", "wrong"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`cws: the server at ${server.origin} refused the admin token\n`);
    const unknownOrg = await cws([
      "resources",
      "--org",
      "nope",
      "--url",
      server.origin,
      "--admin-token",
      "secret-admin",
    ]);
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr).toContain("ORG_NOT_FOUND");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await cws(["reset", "--url", `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(
      `cws: cannot reach the server at http://127.0.0.1:${port} (ECONNREFUSED); is 'cws serve' running there?\n`,
    );
    const badFlag = await bin(["reset", "--org", "demo"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("reset does not take --org");
  });

  it("seed --print shows the seed serve would start from", async () => {
    const builtIn = await cws(["seed", "--print", "--json"]);
    expect(JSON.parse(builtIn.stdout)).toEqual(DEFAULT_SEED);
    const table = await cws(["seed", "--print"]);
    expect(table.stdout).toContain("Seed: the built-in seed");
    expect(table.stdout).toMatch(/gpu-rental-small\s+rental\s+0\.8\s+100\s+1x NVIDIA L4/);
    expect(table.stdout).not.toContain("demo-token");

    const custom: Seed = { ...DEFAULT_SEED, orgs: [{ slug: "acme", tokens: ["acme-token-1"], credits: 5 }] };
    const file = join(dir, "seed.json");
    writeFileSync(file, JSON.stringify(custom));
    expect(JSON.parse((await cws(["seed", "--print", "--json", "--seed", file])).stdout)).toEqual(custom);

    // A seeded data dir wins over --seed: that is what serve would use.
    const dataDir = join(dir, "data");
    const s = await startTestServer({ dataDir, seed: custom });
    await s.close();
    const stored = await cws(["seed", "--print", "--data-dir", dataDir, "--seed", "/nonexistent.json"]);
    expect(stored.stdout).toContain(`Seed: the database in ${dataDir}`);
    expect(stored.stdout).toMatch(/acme\s+acme…\s+5/);

    const broken = join(dir, "broken.json");
    writeFileSync(broken, JSON.stringify({ orgs: [] }));
    const bad = await cws(["seed", "--print", "--seed", broken]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^cws: seed file .*broken\.json: regions: /);
    expect((await cws(["seed"])).stderr).toContain("seed needs --print");
  });

  it("serve still starts, answers and stops on SIGTERM", async () => {
    const served = await startTestServer({ subprocess: true });
    try {
      const url = served.baseUrl;
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
      expect((await fetch(url.replace(/\/v3$/, "/"))).headers.get("content-type")).toContain("text/html");
      const exited = new Promise<number | null>((resolve) => served.process.on("exit", resolve));
      served.process.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      await served.close();
    }
  });
});
