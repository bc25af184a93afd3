import { describe, expect, it } from "vitest";
import { CwsConflictError, CwsServerError } from "../../client/index.ts";
import { createOnce } from "../../provider/common.ts";

type Item = { uid: string; name: string };

/** A fake collection whose create stores the item, then fails as configured. */
function collection(fail?: Error) {
  const items: Item[] = [{ uid: "old-1", name: "web" }];
  let creates = 0;
  return {
    items,
    get creates() {
      return creates;
    },
    async *list() {
      yield* items;
    },
    async create(): Promise<Item> {
      creates++;
      const item = { uid: `new-${creates}`, name: "web" };
      items.push(item);
      if (fail) throw fail;
      return item;
    },
  };
}

const err502 = new CwsServerError({
  status: 502,
  reason: "BAD_GATEWAY",
  message: "gateway",
  method: "POST",
  route: "POST /x",
  path: "/x",
});
const err409 = new CwsConflictError({
  status: 409,
  reason: "X",
  message: "conflict",
  method: "POST",
  route: "POST /x",
  path: "/x",
});

describe("createOnce", () => {
  it("after an ambiguous failure, finds the object the lost request created instead of creating another", async () => {
    const c = collection(err502);
    const got = await createOnce(
      c.list,
      (i) => i.name === "web",
      () => c.create(),
    );
    expect(got.uid).toBe("new-1");
    expect(c.creates).toBe(1);
  });

  it("rethrows a failure that says the service refused, and an ambiguous one that created nothing", async () => {
    const refused = collection(err409);
    await expect(
      createOnce(
        refused.list,
        (i) => i.name === "web",
        () => refused.create(),
      ),
    ).rejects.toBe(err409);
    const lost = collection();
    await expect(
      createOnce(
        lost.list,
        (i) => i.name === "web",
        () => Promise.reject(err502),
      ),
    ).rejects.toBe(err502);
  });

  it("never takes an object that existed before the attempt", async () => {
    const c = collection();
    const got = await createOnce(
      c.list,
      (i) => i.name === "web",
      () => c.create(),
    );
    expect(got.uid).toBe("new-1");
  });
});
