/**
 * Actions (Terraform 1.14+) as Terraform calls them, against the reference server: the schemas,
 * ValidateActionConfig naming the attribute and the rule, PlanAction refusing a wrong target
 * (a reboot of a RENTAL workload, an exec on a VM, a stopped workload) before anything runs, and
 * InvokeAction's events: a progress event per line of output, then the completed event, failed
 * with the exit code and the last lines of output when a sandbox's command exits non-zero. One
 * call goes over the plugin's gRPC server, as Terraform's server stream.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../../client/index.ts";
import { UNKNOWN_VALUE, type MsgValue } from "../../../provider/opentofu/msgpack.ts";
import { PROTO_OPTIONS, serve } from "../../../provider/opentofu/serve.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { dv, planWorkload, state, tofuProvider, workload, type Diag } from "./fixture.ts";

const server = useTestServer({ provisionDelayMs: 10 });
let client: CwsClient;
const provider = tofuProvider();

interface Event {
  progress?: { message: string };
  completed?: { diagnostics: Diag[] };
}

/** The config object of an action: every attribute, null unless given. */
const ACTION_ATTRS: Record<string, string[]> = {
  cws_workload_reboot: ["workload_id", "timeout_sec"],
  cws_workload_exec: ["workload_id", "command", "timeout_sec", "allow_failure"],
  cws_sandbox_write_file: ["workload_id", "path", "content", "content_base64"],
};
const config = (type: string, values: Record<string, MsgValue>) =>
  dv({ ...Object.fromEntries(ACTION_ATTRS[type]!.map((a) => [a, null])), ...values });

const plan = async (type: string, values: Record<string, MsgValue>) =>
  (
    (await provider.planAction({ action_type: type, config: config(type, values) })) as {
      diagnostics: Diag[];
    }
  ).diagnostics;

async function invoke(type: string, values: Record<string, MsgValue>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of provider.invokeAction({ action_type: type, config: config(type, values) }))
    events.push(e as Event);
  return events;
}
const progress = (events: Event[]) => events.flatMap((e) => (e.progress ? [e.progress.message] : []));
const completed = (events: Event[]) => events.at(-1)?.completed?.diagnostics;

/** A workload of `type` made and deployed through the client, running. */
async function running(body: Record<string, unknown>): Promise<string> {
  const w = await client.workloads.create(body as never);
  await client.workloads.deploy(w.uid);
  await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 30_000 });
  return w.uid;
}

let vm: string;
let rental: string;
let box: string;

beforeAll(async () => {
  client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
  provider.configureProvider({
    config: dv({ endpoint: server.baseUrl, org: "demo", api_token: DEMO_TOKEN }),
  });
  [vm, rental, box] = await Promise.all([
    running({
      type: "VM",
      name: "act-vm",
      image: "ubuntu-22.04",
      resource_name: "vm-standard",
      vm_config: { password: "Secret-pass-1" },
    }),
    running({ type: "RENTAL", name: "act-web", image: "nginx:1.27", resource_name: "gpu-rental-small" }),
    running({ type: "SANDBOX", name: "act-box", image: "tpl-ubuntu-headless" }),
  ]);
}, 60_000);

describe("action schemas", () => {
  it("declares the workload's and the sandbox's actions with their arguments, file contents sensitive", () => {
    const meta = provider.getMetadata() as { actions: { type_name: string }[] };
    expect(meta.actions.map((a) => a.type_name).sort()).toEqual([
      "cws_sandbox_write_file",
      "cws_workload_exec",
      "cws_workload_reboot",
    ]);
    const schema = provider.getProviderSchema() as {
      action_schemas: Record<
        string,
        {
          schema: {
            block: { attributes: { name: string; required: boolean; sensitive: boolean; type: Buffer }[] };
          };
        }
      >;
    };
    const exec = schema.action_schemas.cws_workload_exec!.schema.block.attributes;
    expect(exec.map((a) => [a.name, a.required, JSON.parse(a.type.toString())])).toEqual([
      ["workload_id", true, "string"],
      ["command", true, ["list", "string"]],
      ["timeout_sec", false, "number"],
      ["allow_failure", false, "bool"],
    ]);
    const write = schema.action_schemas.cws_sandbox_write_file!.schema.block.attributes;
    expect(write.filter((a) => a.sensitive).map((a) => a.name)).toEqual(["content", "content_base64"]);
  });
});

describe("ValidateActionConfig", () => {
  it("names the attribute and the service's rule, and skips values known only at apply", () => {
    const v = (values: Record<string, MsgValue>) =>
      (
        provider.validateActionConfig({
          type_name: "cws_workload_exec",
          config: config("cws_workload_exec", values),
        }) as {
          diagnostics: Diag[];
        }
      ).diagnostics;
    const tooLong = v({ workload_id: "x", command: ["true"], timeout_sec: 601 });
    expect(tooLong).toEqual([
      expect.objectContaining({
        summary: "cws_workload_exec refused: timeout_sec",
        detail: "timeout_sec must be between 1 and 600",
        attribute: { steps: [{ attribute_name: "timeout_sec" }] },
      }),
    ]);
    expect(v({ workload_id: "x", command: [] })[0]!.detail).toMatch(/command needs at least one argument/);
    expect(v({ workload_id: "x", command: null })[0]!.detail).toMatch(/command is required/);
    expect(v({ workload_id: UNKNOWN_VALUE, command: UNKNOWN_VALUE, timeout_sec: UNKNOWN_VALUE })).toEqual([]);
  });
});

describe("PlanAction refuses a wrong target, naming the rule", () => {
  it("a reboot of a RENTAL workload or a sandbox", async () => {
    const [d] = await plan("cws_workload_reboot", { workload_id: rental });
    expect(d).toMatchObject({ severity: "ERROR", summary: "cws_workload_reboot refused: workload_id" });
    expect(d!.detail).toBe(
      `a reboot is for VM workloads only: workload act-web (${rental}) is RENTAL (a change that redeploys it restarts a RENTAL workload)`,
    );
    expect((await plan("cws_workload_reboot", { workload_id: box }))[0]!.detail).toMatch(/is a sandbox/);
  });

  it("an exec on a VM", async () => {
    const [d] = await plan("cws_workload_exec", { workload_id: vm, command: ["true"] });
    expect(d!.detail).toBe(
      `exec runs in RENTAL workloads and sandboxes only: workload act-vm (${vm}) is a VM (reach a VM over SSH: its public_ip and ssh_port)`,
    );
  });

  it("a stopped workload, unless the same plan changes it (then the run checks it)", async () => {
    const stopped = await running({
      type: "RENTAL",
      name: "act-stopped",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
    });
    await client.workloads.suspend(stopped);
    const [d] = await plan("cws_workload_exec", { workload_id: stopped, command: ["true"] });
    expect(d!.detail).toBe(
      `workload act-stopped (${stopped}) is suspended, not running: cws_workload_exec acts only on a running workload`,
    );
    // A plan that resumes it (suspended = false) before the trigger fires: not refused at plan.
    const other = tofuProvider();
    other.configureProvider({ config: dv({ endpoint: server.baseUrl, org: "demo", api_token: DEMO_TOKEN }) });
    const WEB = {
      type: "RENTAL",
      name: "act-stopped",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
    };
    planWorkload(
      other,
      state({ ...WEB, id: stopped, uid: stopped, suspended: true }),
      workload({ ...WEB, suspended: false }),
    );
    const planned = (await other.planAction({
      action_type: "cws_workload_exec",
      config: config("cws_workload_exec", { workload_id: stopped, command: ["true"] }),
    })) as { diagnostics: Diag[] };
    expect(planned.diagnostics).toEqual([]);
  });

  it("a workload the service does not have; nothing is asked while the uid is not known", async () => {
    expect((await plan("cws_workload_reboot", { workload_id: "wl-nope" }))[0]!.detail).toBe(
      "the service has no workload with uid wl-nope",
    );
    expect(await plan("cws_workload_reboot", { workload_id: UNKNOWN_VALUE })).toEqual([]);
    expect(await plan("cws_workload_reboot", { workload_id: vm })).toEqual([]);
    expect(await plan("cws_workload_exec", { workload_id: box, command: ["true"] })).toEqual([]);
  });
});

describe("InvokeAction", () => {
  const reboots = async (uid: string) => {
    const page = await client.workloads.events(uid, { limit: 1000 });
    return page.items.filter((e) => e.reason === "Reboot").length;
  };

  it("reboots a VM once, waits until it runs again, and says so as progress", async () => {
    const before = await reboots(vm);
    const events = await invoke("cws_workload_reboot", { workload_id: vm });
    expect(completed(events)).toEqual([]);
    expect(progress(events)[0]).toBe(`rebooting VM act-vm (${vm})`);
    expect(progress(events)[1]).toMatch(/^act-vm \(.*\) is running again \(\d+\.\d s\)$/);
    expect(await reboots(vm)).toBe(before + 1);
    expect((await client.workloads.state(vm)).status).toBe("running");
  });

  it("shows a sandbox command's output a line at a time", async () => {
    const events = await invoke("cws_workload_exec", {
      workload_id: box,
      command: ["sh", "-c", "echo one; echo two; echo oops >&2"],
    });
    expect(completed(events)).toEqual([]);
    expect(progress(events)).toEqual([
      `running the command in sandbox act-box (${box})`,
      "one",
      "two",
      "stderr: oops",
      "the command exited with code 0",
    ]);
  });

  it("fails on a non-zero exit with the code and the last lines of output, unless allow_failure", async () => {
    const script = "for i in $(seq 1 30); do echo line-$i; done; exit 3";
    const failed = await invoke("cws_workload_exec", { workload_id: box, command: ["sh", "-c", script] });
    const [d] = completed(failed)!;
    expect(d).toMatchObject({ severity: "ERROR", summary: "cws_workload_exec failed" });
    expect(d!.detail).toMatch(
      new RegExp(`^the command exited with code 3 in act-box \\(${box}\\); last lines of output:\\n`),
    );
    const quoted = d!.detail!.split("\n").slice(1);
    expect(quoted).toEqual(Array.from({ length: 20 }, (_, i) => `line-${i + 11}`));
    const allowed = await invoke("cws_workload_exec", {
      workload_id: box,
      command: ["sh", "-c", script],
      allow_failure: true,
    });
    expect(completed(allowed)).toEqual([]);
    expect(progress(allowed).at(-1)).toBe("the command exited with code 3 (allowed: allow_failure is set)");
  });

  it("runs a command in a RENTAL workload, whose output streams without an exit code", async () => {
    const events = await invoke("cws_workload_exec", {
      workload_id: rental,
      command: ["echo", "hello", "rental"],
    });
    expect(completed(events)).toEqual([]);
    expect(progress(events)).toContain("hello rental");
    expect(progress(events).at(-1)).toBe("the command's output ended");
  });

  it("refuses a wrong target when it runs too (its uid was unknown at plan)", async () => {
    const events = await invoke("cws_workload_reboot", { workload_id: rental });
    expect(completed(events)![0]!.detail).toMatch(/^a reboot is for VM workloads only/);
    expect(await reboots(rental)).toBe(0);
  });
});

describe("cws_sandbox_write_file", () => {
  const W = "cws_sandbox_write_file";

  it("takes exactly one of content and content_base64, and an absolute path", () => {
    const v = (values: Record<string, MsgValue>) =>
      (
        provider.validateActionConfig({ type_name: W, config: config(W, values) }) as { diagnostics: Diag[] }
      ).diagnostics.map((d) => d.detail);
    expect(v({ workload_id: "x", path: "/a", content: "x", content_base64: "eA==" })).toEqual([
      "give exactly one of content and content_base64 (both are set)",
    ]);
    expect(v({ workload_id: "x", path: "/a" })).toEqual([
      "give exactly one of content and content_base64 (neither is set)",
    ]);
    expect(v({ workload_id: "x", path: "etc/app.conf", content: "x" })).toEqual([
      "path must be an absolute guest path",
    ]);
  });

  it("is refused at plan for a workload that is not a sandbox", async () => {
    const [d] = await plan(W, { workload_id: rental, path: "/tmp/a", content: "x" });
    expect(d!.detail).toBe(
      `writing a file is for sandboxes only: workload act-web (${rental}) is RENTAL (the service has no file access to other types)`,
    );
  });

  it("writes the file, saying its size and never its content", async () => {
    const secret = "token = s3cr3t-value\n";
    const events = await invoke(W, { workload_id: box, path: "/tmp/app.conf", content: secret });
    expect(completed(events)).toEqual([]);
    expect(progress(events)).toEqual([
      `wrote ${secret.length} bytes to /tmp/app.conf in sandbox act-box (${box})`,
    ]);
    expect(JSON.stringify(events)).not.toContain("s3cr3t");
    expect((await client.sandboxes.readFile(box, "/tmp/app.conf")).toString()).toBe(secret);
    const binary = await invoke(W, { workload_id: box, path: "/tmp/blob", content_base64: "AAEC/w==" });
    expect(completed(binary)).toEqual([]);
    expect([...(await client.sandboxes.readFile(box, "/tmp/blob"))]).toEqual([0, 1, 2, 255]);
  });
});

describe("InvokeAction over the plugin's gRPC server", () => {
  let served: Awaited<ReturnType<typeof serve>>;
  let grpcClient: grpc.Client & Record<string, (req: unknown) => grpc.ClientReadableStream<Event>>;

  beforeAll(async () => {
    served = await serve(provider, {});
    const pkg = grpc.loadPackageDefinition(
      protoLoader.loadSync("tfplugin6.proto", PROTO_OPTIONS),
    ) as unknown as {
      tfplugin6: { Provider: grpc.ServiceClientConstructor };
    };
    grpcClient = new pkg.tfplugin6.Provider(
      served.handshake.split("|")[3]!,
      grpc.credentials.createInsecure(),
    ) as never;
  });
  afterAll(() => {
    grpcClient?.close();
    served?.server.forceShutdown();
  });

  it("streams the progress events, then the completed one", async () => {
    const stream = grpcClient.InvokeAction!({
      action_type: "cws_workload_exec",
      config: config("cws_workload_exec", { workload_id: box, command: ["echo", "over", "grpc"] }),
    });
    const events: Event[] = [];
    for await (const e of stream) events.push(e as Event);
    expect(events.filter((e) => e.progress).map((e) => e.progress!.message)).toContain("over grpc");
    expect(events.at(-1)).toMatchObject({ completed: { diagnostics: [] } });
  });
});
