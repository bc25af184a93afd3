// The client against the endpoint table (api/endpoints/): every endpoint of the service has a
// client method that calls it (the client takes method, path and answer schema from the entry),
// fills every parameter of its path, sends a body the declared schema accepts and reads the
// answer the way the table declares it; and every request of the client is an endpoint of the table.
import { describe, expect, it } from "vitest";
import type { Dispatcher } from "undici";
import {
  ENDPOINTS,
  META,
  SANDBOXES,
  SANDBOX_TEMPLATES,
  SSH_KEYS,
  TEMPLATES,
  VOLUMES,
  WORKLOADS,
  type Endpoint,
} from "../../api/endpoints/index.ts";
import { Transport, type Operation } from "../../client/http.ts";
import { DEFAULT_RETRY } from "../../client/retry.ts";
import { PUBLIC_KEY } from "../server/fixtures.ts";
import {
  Meta,
  SandboxTemplates,
  Sandboxes,
  SshKeys,
  Templates,
  Volumes,
  Workloads,
} from "../../client/index.ts";

interface Call {
  kind: "json" | "empty" | "text" | "stream" | "prepare";
  op: Operation;
}

/** A transport that only fills paths (it sends nothing): what a recorded call's path would be. */
const paths = new Transport({
  baseUrl: "http://127.0.0.1:1/v3",
  org: "demo",
  token: "t",
  timeoutMs: 1_000,
  retry: DEFAULT_RETRY,
  unreachableTimeoutMs: 1_000,
  baseUrlSetting: "baseUrl",
  userAgent: "test",
  dispatcher: {} as Dispatcher,
  strictResponses: false,
});

/** A transport that records what a client method asks for and answers nothing. */
function recorder() {
  const calls: Call[] = [];
  const stop = new Error("recorded");
  const t = {
    json: async (op: Operation) => {
      calls.push({ kind: "json", op });
      throw stop;
    },
    empty: async (op: Operation) => {
      calls.push({ kind: "empty", op });
      throw stop;
    },
    text: async (op: Operation) => {
      calls.push({ kind: "text", op });
      throw stop;
    },
    stream: (op: Operation) => {
      calls.push({ kind: "stream", op });
      return (async function* (): AsyncGenerator<string> {
        yield* [];
        throw stop;
      })();
    },
    prepare: (op: Operation) => {
      calls.push({ kind: "prepare", op });
      throw stop;
    },
    defaultTimeoutMs: () => 30_000,
  } as unknown as Transport;
  const c = {
    workloads: new Workloads(t),
    sandboxes: new Sandboxes(t),
    sandboxTemplates: new SandboxTemplates(t),
    templates: new Templates(t),
    volumes: new Volumes(t),
    sshKeys: new SshKeys(t),
    meta: new Meta(t),
  };
  return { c, calls, stop };
}
type Client = ReturnType<typeof recorder>["c"];

const U = "uid-1";
const RENTAL = {
  type: "RENTAL",
  name: "web",
  image: "nginx:1.27",
  resource_name: "gpu-rental-small",
} as const;

/** For each endpoint of the service: the client call that serves it. */
const CALLS = new Map<Endpoint, (c: Client) => unknown>([
  [META.health, (c) => c.meta.health()],
  [META.ready, (c) => c.meta.ready()],
  [META.version, (c) => c.meta.version()],
  [META.regions, (c) => c.meta.regions()],
  [WORKLOADS.vmImages, (c) => c.workloads.vmImages()],
  [WORKLOADS.bmImages, (c) => c.workloads.bmImages()],
  [WORKLOADS.verify, (c) => c.workloads.verify({ uid: U, digest: `sha256:${"0".repeat(64)}` })],
  [WORKLOADS.create, (c) => c.workloads.create(RENTAL)],
  [WORKLOADS.list, (c) => c.workloads.list({ limit: 5 })],
  [WORKLOADS.get, (c) => c.workloads.get(U)],
  [WORKLOADS.update, (c) => c.workloads.update(U, { name: "web2" })],
  [WORKLOADS.delete, (c) => c.workloads.delete(U)],
  [WORKLOADS.deploy, (c) => c.workloads.deploy(U)],
  [WORKLOADS.suspend, (c) => c.workloads.suspend(U)],
  [WORKLOADS.reboot, (c) => c.workloads.reboot(U)],
  [WORKLOADS.state, (c) => c.workloads.state(U)],
  [WORKLOADS.events, (c) => c.workloads.events(U)],
  [WORKLOADS.logs, (c) => c.workloads.logs(U, { tail: 5 })],
  [WORKLOADS.exec, (c) => c.workloads.exec(U, ["ls"]).next()],
  [WORKLOADS.attachVolume, (c) => c.workloads.attachVolume(U, "vol-1", { mount_path: "/data" })],
  [WORKLOADS.detachVolume, (c) => c.workloads.detachVolume(U, "vol-1")],
  [WORKLOADS.attachSshKey, (c) => c.workloads.attachSshKey(U, "key-1")],
  [WORKLOADS.detachSshKey, (c) => c.workloads.detachSshKey(U, "key-1")],
  [SANDBOXES.freeze, (c) => c.sandboxes.freeze(U)],
  [SANDBOXES.thaw, (c) => c.sandboxes.thaw(U)],
  [SANDBOXES.fork, (c) => c.sandboxes.fork(U, { name: "child" })],
  [SANDBOXES.publish, (c) => c.sandboxes.publish(U, { name: "tpl" })],
  [SANDBOXES.readFile, (c) => c.sandboxes.readFile(U, "/etc/hostname")],
  [SANDBOXES.writeFile, (c) => c.sandboxes.writeFile(U, "/tmp/x", "hi")],
  [SANDBOXES.createTicket, (c) => c.sandboxes.createTicket(U, { ttl_sec: 60 })],
  [SANDBOXES.listTerminals, (c) => c.sandboxes.listTerminals(U)],
  [SANDBOXES.createTerminal, (c) => c.sandboxes.createTerminal(U, { cols: 80, rows: 24 })],
  [SANDBOXES.deleteTerminal, (c) => c.sandboxes.deleteTerminal(U, "t1")],
  [SANDBOXES.desktop, (c) => c.sandboxes.desktop(U)],
  [SANDBOXES.terminalSocket, (c) => c.sandboxes.connectTerminal(U, "t1")],
  [SANDBOXES.desktopSocket, (c) => c.sandboxes.connectDesktop(U)],
  [SANDBOX_TEMPLATES.list, (c) => c.sandboxTemplates.list({ kind: "FRESH" })],
  [SANDBOX_TEMPLATES.get, (c) => c.sandboxTemplates.get(U)],
  [SANDBOX_TEMPLATES.update, (c) => c.sandboxTemplates.update(U, { display_name: "x" })],
  [SANDBOX_TEMPLATES.delete, (c) => c.sandboxTemplates.delete(U)],
  [TEMPLATES.create, (c) => c.templates.create({ name: "t", type: "RENTAL", manifest: { ...RENTAL } })],
  [TEMPLATES.list, (c) => c.templates.list({ type: "RENTAL" })],
  [TEMPLATES.get, (c) => c.templates.get(U)],
  [TEMPLATES.update, (c) => c.templates.update(U, { name: "t2" })],
  [TEMPLATES.delete, (c) => c.templates.delete(U)],
  [
    VOLUMES.create,
    (c) => c.volumes.create({ name: "v", size_in_mb: 1024, resource_name: "gpu-rental-small" }),
  ],
  [VOLUMES.list, (c) => c.volumes.list({ limit: 2 })],
  [VOLUMES.get, (c) => c.volumes.get(U)],
  [VOLUMES.state, (c) => c.volumes.state(U)],
  [VOLUMES.events, (c) => c.volumes.events(U)],
  [VOLUMES.update, (c) => c.volumes.update(U, { name: "v2" })],
  [VOLUMES.delete, (c) => c.volumes.delete(U)],
  [SSH_KEYS.create, (c) => c.sshKeys.create({ name: "k", ssh_key: PUBLIC_KEY })],
  [SSH_KEYS.list, (c) => c.sshKeys.list()],
  [SSH_KEYS.get, (c) => c.sshKeys.get(U)],
  [SSH_KEYS.update, (c) => c.sshKeys.update(U, { name: "k2" })],
  [SSH_KEYS.delete, (c) => c.sshKeys.delete(U)],
]);

/** Endpoints the client has no method for, and why. */
const NOT_IN_CLIENT = new Map<Endpoint, string>([
  [META.openapi, "the document describes the API; a client of the API does not need it"],
  ...ENDPOINTS.filter((e) => e.prefix === "/admin").map(
    (e) => [e, "the reference server's admin surface is not the service's API"] as [Endpoint, string],
  ),
]);

async function record(call: (c: Client) => unknown): Promise<Call[]> {
  const r = recorder();
  await Promise.resolve()
    .then(() => call(r.c))
    .catch((e: unknown) => {
      if (e !== r.stop) throw e;
    });
  return r.calls;
}

describe("the client and the endpoint table", () => {
  it("has a client call for every endpoint of the service, or a reason why not", () => {
    const missing = ENDPOINTS.filter((e) => !CALLS.has(e) && !NOT_IN_CLIENT.has(e)).map(
      (e) => `${e.method} ${e.prefix}${e.pattern}`,
    );
    expect(missing).toEqual([]);
  });

  for (const [endpoint, call] of CALLS) {
    it(`${endpoint.method} ${endpoint.pattern}`, async () => {
      const calls = await record(call);
      const made = calls.find((c) => c.op.endpoint === endpoint);
      expect(made, JSON.stringify(calls.map((c) => c.op.endpoint.pattern))).toBeDefined();
      // every parameter of the path is given (prepare throws on a missing one)
      expect(paths.prepare(made!.op).path).not.toMatch(/:\w/);
      if (endpoint.websocket) {
        expect(made!.kind).toBe("prepare");
        return;
      }
      if (made!.op.body !== undefined) {
        expect(endpoint.body, "the client sends a body the table does not declare").toBeDefined();
        const parsed = endpoint.body!.safeParse(made!.op.body);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      }
      const [status, answer] = Object.entries(endpoint.responses)[0]!;
      if (made!.kind === "json") {
        // read with the schema the table declares for the answer
        expect(answer.schema).toBeDefined();
      } else if (made!.kind === "empty") {
        expect(status).toBe("204");
      } else {
        expect(answer.text).toBe(true);
      }
    });
  }

  it("every request the client sends is an endpoint of the table", () => {
    const routes = [...CALLS.values()];
    return Promise.all(routes.map(record)).then((all) => {
      for (const c of all.flat())
        expect(ENDPOINTS.includes(c.op.endpoint), `${c.op.endpoint.method} ${c.op.endpoint.pattern}`).toBe(
          true,
        );
    });
  });
});
