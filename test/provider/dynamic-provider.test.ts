/* eslint-disable @typescript-eslint/no-require-imports */
import * as pulumi from "@pulumi/pulumi";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_CONDITION } from "../../scripts/offline-stack.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { providerModule } from "../../sdk/provider.ts";
import { sshKey } from "../helpers/ssh-keys.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * What the engine's dynamic-provider process does with a resource's `__provider`: evaluate the
 * text with require-from-string (from the project dir, where `pulumi-cws` resolves), call
 * `handler()` once per distinct text, configure the provider, then call its methods. Run in a
 * child Node process with the source condition, as the engine's provider process runs.
 */
const ENGINE = `
const requireFromString = require("require-from-string");
const [text, baseUrl, publicKey] = process.argv.slice(1);
const config = { get: (k) => ({ "cws:baseUrl": baseUrl, "cws:org": "demo", "cws:apiToken": "demo-token" })[k] };
(async () => {
  const provider = requireFromString(text).handler();
  const out = {
    methods: Object.keys(provider).filter((k) => typeof provider[k] === "function").sort(),
    sameObject: requireFromString(text).handler() === provider,
  };
  await provider.configure({ config });
  const inputs = { name: "k1", publicKey, __provider: text };
  out.badCheck = (await provider.check({}, { ...inputs, name: "" })).failures;
  out.rename = await provider.diff("key-1", inputs, { ...inputs, name: "k2" });
  out.rekey = await provider.diff("key-1", inputs, { ...inputs, publicKey: publicKey.replace("AAAA", "BBBB") });
  const created = await provider.create(inputs);
  out.created = { id: created.id, name: created.outs.name, provider: "__provider" in created.outs };
  out.read = (await provider.read(created.id, { ...created.outs, __provider: text })).props.name;
  await provider.delete(created.id, { ...created.outs, __provider: text });
  out.gone = (await provider.read(created.id, { ...created.outs, __provider: text })).id;
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/**
 * The provider object earlier versions serialized into state with Pulumi's closure serializer: a
 * closure per method calling `pulumi-cws/provider/dynamic`'s per-operation functions. Stacks
 * written then still refresh, update and destroy with it.
 */
function legacyProvider(type: string): pulumi.dynamic.ResourceProvider {
  const impl = () => require("pulumi-cws/provider/dynamic");
  return {
    configure: async (r) => impl().configure(r.config),
    check: async (o, n) => impl().check(type, o, n),
    diff: async (i, o, n) => impl().diff(type, i, o, n),
    create: async (p) => impl().create(type, p),
    read: async (i, p) => impl().read(type, i, p),
    update: async (i, o, n) => impl().update(type, i, o, n),
    delete: async (i, p) => impl().remove(type, i, p),
  };
}

async function asEngine(text: string, baseUrl: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [SOURCE_CONDITION, "-e", ENGINE, text, baseUrl, sshKey(1, "k1")],
    { cwd: REPO_ROOT },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("the __provider of a dynamic resource", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("is one line that loads the type's provider by package name, the same for every resource", () => {
    const text = providerModule("SshKey");
    expect(text).toBe(`exports.handler=()=>require("pulumi-cws/provider/dynamic").provider("SshKey")`);
    expect(text.length).toBeLessThan(100);
  });

  const expectWorking = (out: Record<string, unknown>) => {
    expect(out.methods).toEqual(["check", "configure", "create", "delete", "diff", "read", "update"]);
    expect(out.badCheck).toEqual([expect.objectContaining({ property: "name" })]);
    expect(out.rename).toMatchObject({ changes: true, replaces: [] });
    expect(out.rekey).toMatchObject({ changes: true, replaces: ["publicKey"] });
    expect(out.created).toMatchObject({ id: expect.stringMatching(/^key-/), name: "k1", provider: false });
    expect(out.read).toBe("k1");
    expect(out.gone).toBe("");
  };

  it("gives the engine a provider whose calls reach the resource module and the service", async () => {
    const out = await asEngine(providerModule("SshKey"), server.baseUrl);
    expectWorking(out);
    expect(out.sameObject).toBe(true);
  });

  it("written by earlier versions (a serialized closure) still works", async () => {
    // As pulumi.dynamic.Resource serialized it: the handler returns the provider object.
    const provider = legacyProvider("SshKey");
    const { text } = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    expect(text).toContain(`impl().check(type, o, n)`);
    expectWorking(await asEngine(text, server.baseUrl));
  });
});
