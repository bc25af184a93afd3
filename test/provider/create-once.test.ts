import { describe, expect, it } from "vitest";
import { CwsConflictError, CwsServerError } from "../../client/index.ts";
import { CREATE_ATTEMPTS, createOnce } from "../../provider/core/create-once.ts";

type Item = { uid: string; name: string; spec: string; at: number };

const err = (status: number) =>
  new (status === 409 ? CwsConflictError : CwsServerError)({
    status,
    reason: "X",
    message: `status ${status}`,
    method: "POST",
    route: "POST /x",
    path: "/x",
  });

/**
 * A fake collection: `outcomes` says, per attempt, whether the create is carried out and what
 * the caller hears (ok, or a failure status). `find` matches the whole request and the time.
 */
function collection(outcomes: { acts: boolean; answer: "ok" | number }[], existing: Item[] = []) {
  const items = [...existing];
  let attempts = 0;
  let lists = 0;
  const spec = {
    what: "workload web",
    async create() {
      const o = outcomes[attempts++] ?? { acts: true, answer: "ok" };
      const item = { uid: `new-${attempts}`, name: "web", spec: "a", at: Date.now() };
      if (o.acts) items.push(item);
      if (o.answer !== "ok") throw err(o.answer);
      return item;
    },
    async find(since: number) {
      lists++;
      return items.filter((i) => i.name === "web" && i.spec === "a" && i.at >= since);
    },
  };
  return {
    spec,
    items,
    get attempts() {
      return attempts;
    },
    get lists() {
      return lists;
    },
  };
}

describe("createOnce", () => {
  it("lists nothing when the create succeeds", async () => {
    const c = collection([{ acts: true, answer: "ok" }]);
    expect((await createOnce(c.spec)).uid).toBe("new-1");
    expect(c.lists).toBe(0);
  });

  it("after an ambiguous failure, takes the object the lost request made", async () => {
    const c = collection([{ acts: true, answer: 502 }]);
    expect((await createOnce(c.spec)).uid).toBe("new-1");
    expect(c.attempts).toBe(1);
    expect(c.items).toHaveLength(1);
  });

  it("never takes an object of the same request made before the attempt began", async () => {
    const old = { uid: "old-1", name: "web", spec: "a", at: Date.now() - 60_000 };
    const c = collection([{ acts: true, answer: 502 }], [old]);
    expect((await createOnce(c.spec)).uid).toBe("new-1");
  });

  it("sends the create again when the lookup shows the failed attempt made nothing", async () => {
    const c = collection([
      { acts: false, answer: 502 },
      { acts: false, answer: 504 },
      { acts: true, answer: "ok" },
    ]);
    expect((await createOnce(c.spec)).uid).toBe("new-3");
    expect(c.items.map((i) => i.uid)).toEqual(["new-3"]);
  });

  it("gives up after CREATE_ATTEMPTS attempts that made nothing, with the last failure", async () => {
    const c = collection(Array.from({ length: CREATE_ATTEMPTS }, () => ({ acts: false, answer: 502 })));
    await expect(createOnce(c.spec)).rejects.toMatchObject({ status: 502 });
    expect(c.attempts).toBe(CREATE_ATTEMPTS);
  });

  it("refuses to guess between several identical objects made since the attempt began", async () => {
    const twin = { uid: "twin", name: "web", spec: "a", at: Date.now() + 1 };
    const c = collection([{ acts: true, answer: 502 }]);
    c.spec.create = (
      (orig) => () =>
        orig().catch((e: unknown) => {
          c.items.push(twin);
          throw e;
        })
    )(c.spec.create.bind(c.spec));
    await expect(createOnce(c.spec)).rejects.toThrow(
      /2 identical objects were created since it began: web \(uid new-1\), web \(uid twin\)\. Another stack may have created one/,
    );
  });

  it("rethrows a refusal at once, without looking anything up", async () => {
    const c = collection([{ acts: false, answer: 409 }]);
    await expect(createOnce(c.spec)).rejects.toMatchObject({ status: 409 });
    expect(c.lists).toBe(0);
    expect(c.attempts).toBe(1);
  });
});
