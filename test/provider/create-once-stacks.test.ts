/**
 * Create-once when two stacks of one program create identical objects in one org, against the
 * in-process reference server: this stack's create is lost before the service acts (a 502 after
 * a delay) while the other stack's identical create lands. With auto-names the lookup that
 * follows cannot match the other stack's object, and the create is sent again; with the same
 * explicit name nothing tells the two apart (docs/teams.md says so).
 */
import { describe, expect, it } from "vitest";
import type { Props } from "../../provider/core/types.ts";
import { RESOURCES } from "../../provider/registry.ts";
import { admin, api } from "../helpers/http.ts";
import { useProviderContext } from "../helpers/provider-context.ts";

const { Volume } = RESOURCES as Required<typeof RESOURCES>;
const DATA = { sizeInMb: 128, resourceName: "gpu-rental-small" };

const { server, ctx, logs } = useProviderContext();

/**
 * Creates `ours` while its request is lost (502 before the service acts, 500 ms late) and the
 * other stack's `theirs` lands meanwhile: the uid our create ends with, and theirs.
 */
async function raceAgainstAnotherStack(ours: Props, theirs: Props) {
  await admin(server, "POST", "/faults", {
    method: "POST",
    path: "^/orgs/demo/volumes$",
    count: 1,
    status: 502,
    latency_ms: 500,
  });
  const mine = Volume.create(ctx, ours);
  await new Promise((r) => setTimeout(r, 150)); // our attempt has begun and holds the fault
  const other = await api<{ uid: string }>(server, "POST", "/orgs/demo/volumes", {
    name: theirs.name,
    size_in_mb: theirs.sizeInMb,
    resource_name: theirs.resourceName,
  });
  return { mine: (await mine).id, theirs: other.uid };
}

describe("create-once with two stacks creating identical objects at once", () => {
  it("auto-names: the lost create is sent again and makes this stack's own object", async () => {
    const ours = Volume.check({}, DATA, { logicalName: "data" }).inputs;
    const theirs = Volume.check({}, DATA, { logicalName: "data" }).inputs;
    expect(ours.name).not.toBe(theirs.name);
    const r = await raceAgainstAnotherStack(ours, theirs);
    expect(r.mine).not.toBe(r.theirs);
    const live = await api<{ items: { uid: string; name: string }[] }>(server, "GET", "/orgs/demo/volumes");
    expect(live.items.map((v) => [v.uid, v.name]).sort()).toEqual(
      [
        [r.mine, ours.name],
        [r.theirs, theirs.name],
      ].sort(),
    );
    expect(logs.some((l) => l.includes("made nothing; sending it again"))).toBe(true);
  });

  it("the same explicit name: the other stack's object is taken, as docs/teams.md warns", async () => {
    const named = { ...DATA, name: "shared-data" };
    const r = await raceAgainstAnotherStack(named, named);
    expect(r.mine).toBe(r.theirs);
  });
});
