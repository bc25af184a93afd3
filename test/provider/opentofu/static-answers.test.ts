/**
 * The answers the build encodes for the calls that depend on the package alone
 * (provider/opentofu/static-answers.ts): the adapter's own answers, the same whatever the provider
 * was configured with, so that answering them from the build's bytes changes nothing.
 */
import { describe, expect, it } from "vitest";
import { encodeMsgpack } from "../../../provider/opentofu/msgpack.ts";
import { loadServices } from "../../../provider/opentofu/protocol.ts";
import { STATIC_RPCS, encodeStaticAnswers } from "../../../provider/opentofu/static-answers.ts";
import { tofuProvider } from "./fixture.ts";

const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);

describe("the OpenTofu provider's answers made by the build", () => {
  it("are the adapter's answers, whatever the provider was configured with", async () => {
    const services = await loadServices();
    const answers = encodeStaticAnswers(tofuProvider(), services);
    expect(Object.keys(answers).sort()).toEqual([...STATIC_RPCS].sort());

    const configured = tofuProvider();
    const config = { endpoint: "https://api.example.com/v3", org: "acme", api_token: "t" };
    configured.configureProvider({ config: { msgpack: encodeMsgpack(config) } });
    for (const rpc of STATIC_RPCS) {
      const live = (configured as unknown as Record<string, () => unknown>)[lowerFirst(rpc)]!.call(
        configured,
      );
      const def = services.provider[rpc]!;
      expect(def.responseDeserialize(answers[rpc]!), rpc).toEqual(
        def.responseDeserialize(Buffer.from(def.responseSerialize(live))),
      );
    }
  });
});
