// What the native plugin says on a resource's line while a create waits for capacity: the wait's
// progress as the engine's status line (an ephemeral message), and the fallback it took as a
// message kept among the run's diagnostics.
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { describe, expect, it } from "vitest";
import { CwsPlugin } from "../../../provider/native/adapter.ts";
import { encode } from "../../../provider/native/values.ts";
import { admin, api, DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";

const server = useTestServer();
const URN = "urn:pulumi:dev::proj::cws:index:Workload::trainer";

describe("the native plugin's words while capacity runs out", () => {
  it("shows the wait on the status line and keeps the fallback it took", async () => {
    const said: { urn: string; message: string; ephemeral: boolean }[] = [];
    const plugin = new CwsPlugin({
      version: "9.9.9",
      schema: () => "{}",
      log: {
        log: async (urn, message, _severity, ephemeral = false) =>
          void said.push({ urn, message, ephemeral }),
        close() {},
      },
    });
    const configure = new providerPb.ConfigureRequest();
    configure.setArgs(encode({ baseUrl: server.baseUrl, org: "demo", apiToken: DEMO_TOKEN }));
    plugin.configure(configure);
    for (const name of ["gpu-rental-large", "gpu-rental-medium"])
      await admin(server, "PUT", `/inventory/${name}`, { capacity: 0 });

    const req = new providerPb.CreateRequest();
    req.setUrn(URN);
    req.setProperties(
      encode({
        type: "RENTAL",
        name: "trainer",
        image: "nginx:1.27",
        resourceName: "gpu-rental-large",
        fallbackResourceNames: ["gpu-rental-medium"],
        waitForCapacity: "1m",
      }),
    );
    const created = plugin.create(req);
    const refused = "/orgs/demo/workloads?name=trainer&status=deleted";
    while ((await api<{ items: unknown[] }>(server, "GET", refused)).items.length < 2)
      await new Promise((r) => setTimeout(r, 50));
    await admin(server, "PUT", "/inventory/gpu-rental-medium", { capacity: null });
    await created;

    expect(said.every((s) => s.urn === URN)).toBe(true);
    expect(said.filter((s) => s.ephemeral).map((s) => s.message)[0]).toMatch(
      /^waiting for capacity \(gpu-rental-large: no capacity; gpu-rental-medium: no capacity\): trying again in 1s/,
    );
    expect(said.filter((s) => !s.ephemeral && /placed on/.test(s.message)).map((s) => s.message)).toEqual([
      expect.stringMatching(
        /^gpu-rental-large: no capacity; waited \d+s for capacity; placed on gpu-rental-medium$/,
      ),
    ]);
  });
});
