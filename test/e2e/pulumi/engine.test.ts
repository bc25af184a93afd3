import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineStack, type OfflineStack } from "../../../scripts/offline-stack.ts";

/** A dynamic resource whose provider reports the Node version of the provider process. */
const echoProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: `echo-${inputs.word}`, outs: { word: inputs.word, providerNode: process.version } };
  },
  async diff(_id, olds, news) {
    return { changes: olds.word !== news.word, replaces: olds.word !== news.word ? ["word"] : [] };
  },
  async read(id, props) {
    return { id, props };
  },
};

class Echo extends pulumi.dynamic.Resource {
  declare readonly word: pulumi.Output<string>;
  declare readonly providerNode: pulumi.Output<string>;
  constructor(name: string, args: { word: string }, opts?: pulumi.CustomResourceOptions) {
    super(echoProvider, name, { ...args, providerNode: undefined }, opts, "cws-test", "Echo");
  }
}

describe("the Pulumi engine, offline", () => {
  let s: OfflineStack;
  beforeAll(async () => {
    s = await offlineStack({
      projectName: "engine-smoke",
      program: async () => {
        const echo = new Echo("hello", { word: "hello" });
        return { programNode: process.version, word: echo.word, providerNode: echo.providerNode };
      },
    });
  });
  afterAll(async () => s?.cleanup());

  it("runs up, preview, refresh and destroy on Node >= 22", async () => {
    const up = await s.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges?.create).toBe(2);
    expect(up.outputs.word.value).toBe("hello");
    const major = (v: string) => Number(/^v(\d+)/.exec(v)?.[1]);
    console.log(
      `program node ${up.outputs.programNode.value}, provider node ${up.outputs.providerNode.value}`,
    );
    expect(major(up.outputs.programNode.value)).toBeGreaterThanOrEqual(22);
    expect(major(up.outputs.providerNode.value)).toBeGreaterThanOrEqual(22);

    const preview = await s.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });

    const refresh = await s.stack.refresh();
    expect(refresh.summary.result).toBe("succeeded");

    const destroy = await s.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.summary.resourceChanges?.delete).toBe(2);
    const exported = await s.stack.exportStack();
    expect(exported.deployment.resources ?? []).toHaveLength(0);
  }, 300_000);
});
