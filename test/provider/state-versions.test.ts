/**
 * State versions and migrations (provider/state.ts): a hand-made "version 0" state, today's shape
 * with one property named otherwise (`registryCredentials` for `registryAuth`, a secret), enters
 * through both front ends and comes out in today's shape, its secret still secret.
 */
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as dynamic from "../../provider/dynamic/adapter.ts";
import { CwsPlugin } from "../../provider/native/adapter.ts";
import { SIG_KEY, encode, secret } from "../../provider/native/values.ts";
import type { Props } from "../../provider/core/types.ts";
import {
  MIGRATIONS,
  STATE_VERSION,
  STATE_VERSION_KEY,
  fromState,
  toState,
  type Migration,
} from "../../provider/core/state.ts";
import { api, DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";

const URN = "urn:pulumi:dev::proj::cws:index:Workload::web";
const AUTH = { server: "registry.example.com", username: "ci", password: "state-v0-pass-51d2" };

/** Version 0 called the registry credentials `registryCredentials`. */
const RENAME: Migration = {
  type: "Workload",
  from: 0,
  migrate: ({ registryCredentials, ...rest }) => ({ ...rest, registryAuth: registryCredentials }),
};

/** The inputs of a RENTAL workload in today's shape. */
const INPUTS: Props = {
  type: "RENTAL",
  name: "state-web",
  image: "nginx:1.27",
  resourceName: "gpu-rental-small",
  registryAuth: AUTH,
};

/** The same as version 0 wrote it: the credentials under their old name, and the version. */
function versionZero(props: Props, wrap: (v: unknown) => unknown = (v) => v): Props {
  const { registryAuth, ...rest } = props;
  return { ...rest, registryCredentials: wrap(registryAuth), [STATE_VERSION_KEY]: 0 };
}

describe("state versions", () => {
  it("reads unversioned state (0.1.0) as today's shape and marks what it writes", () => {
    expect(fromState("Workload", { name: "a" })).toEqual({ name: "a" });
    expect(fromState("Workload", toState({ name: "a" }))).toEqual({ name: "a" });
    expect(toState({ name: "a" })).toEqual({ name: "a", [STATE_VERSION_KEY]: STATE_VERSION });
  });

  it("refuses state written by a newer provider, naming both versions", () => {
    expect(() => fromState("Volume", { name: "a", [STATE_VERSION_KEY]: STATE_VERSION + 1 })).toThrow(
      `state version ${STATE_VERSION + 1}; this provider reads up to ${STATE_VERSION}`,
    );
  });

  it("runs the migrations of the state's type from its version on", () => {
    const v0 = versionZero(INPUTS);
    expect(fromState("Workload", v0, [RENAME])).toEqual(INPUTS);
    expect(fromState("Volume", { name: "v", [STATE_VERSION_KEY]: 0 }, [RENAME])).toEqual({ name: "v" });
  });
});

describe("version 0 state through the front ends", () => {
  const server = useTestServer();
  let uid: string;
  beforeAll(async () => {
    MIGRATIONS.push(RENAME);
    const w = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
      type: "RENTAL",
      name: "state-web",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
      registry_auth: AUTH,
    });
    uid = w.uid;
  });
  afterAll(() => void MIGRATIONS.splice(MIGRATIONS.indexOf(RENAME), 1));

  it("dynamic: check and diff see today's shape: no change against the same program", async () => {
    const olds = versionZero(INPUTS);
    const checked = dynamic.check("Workload", olds, INPUTS);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs[STATE_VERSION_KEY]).toBe(STATE_VERSION);
    expect((await dynamic.diff("Workload", uid, olds, checked.inputs)).changes).toBe(false);
  });

  it("native: diff sees no change, and read keeps the renamed secret, still secret", async () => {
    const plugin = new CwsPlugin({
      version: "0.0.0",
      schema: () => "{}",
      log: { log: async () => {}, close() {} },
    });
    const configure = new providerPb.ConfigureRequest();
    configure.setArgs(encode({ baseUrl: server.baseUrl, org: "demo", apiToken: DEMO_TOKEN }));
    plugin.configure(configure);
    const olds = encode(versionZero(INPUTS, secret));

    const diff = new providerPb.DiffRequest();
    diff.setUrn(URN);
    diff.setId(uid);
    diff.setOlds(olds);
    diff.setNews(encode(INPUTS, ["registryAuth"]));
    const d = plugin.diff(diff) as InstanceType<typeof providerPb.DiffResponse>;
    expect(d.getChanges()).toBe(providerPb.DiffResponse.DiffChanges.DIFF_NONE);

    const read = new providerPb.ReadRequest();
    read.setUrn(URN);
    read.setId(uid);
    read.setProperties(olds);
    read.setInputs(olds);
    const r = (await plugin.read(read)) as InstanceType<typeof providerPb.ReadResponse>;
    for (const props of [r.getProperties(), r.getInputs()]) {
      const out = props!.toJavaScript() as Props;
      expect(out.registryCredentials).toBeUndefined();
      expect(out.registryAuth).toEqual({ [SIG_KEY]: expect.any(String), value: AUTH });
      expect(out[STATE_VERSION_KEY]).toBe(STATE_VERSION);
    }
  });
});
