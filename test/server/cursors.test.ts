/* eslint-disable @typescript-eslint/no-explicit-any */
// List cursors (common/cursors.ts, common/pages.ts) on every list of the API: a walk with
// next_cursor sees every item once, survives deletion of the item it stopped at, and any
// cursor this list did not hand out to this org (malformed, forged, altered, another org's,
// another list's, another org's UID, from before a reset) gets one and the same answer.
import { beforeAll, describe, expect, it } from "vitest";
import { OTHER_TOKEN, adminCall, call, type Res } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { PUBLIC_KEY, create, putSandboxTemplate, rental } from "./fixtures.ts";

type Org = "demo" | "other";
const TOKEN = { demo: undefined, other: OTHER_TOKEN };

interface List {
  name: string;
  /** The list's path for an org. */
  path(org: Org): string;
  /** Makes one more item of the org's list; returns its UID (or nothing, for events). */
  add(org: Org, i: number): Promise<string | void>;
  /** Deletes an item (absent: items of this list are never deleted). */
  remove?(org: Org, uid: string): Promise<void>;
}

describe("list cursors", () => {
  const s = useTestServer();
  const ok = async (r: Promise<Res>) => {
    const res = await r;
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };
  const post = (org: Org, path: string, body: unknown) =>
    ok(call(s, "POST", `/orgs/${org}/${path}`, body, { token: TOKEN[org] }));
  const del = (org: Org, path: string) =>
    ok(call(s, "DELETE", `/orgs/${org}/${path}`, undefined, { token: TOKEN[org] }));
  const get = (org: Org, path: string) => call(s, "GET", path, undefined, { token: TOKEN[org] });

  // A workload and a volume per org whose events are lists too.
  const subjects: Record<Org, { workload: string; volume: string }> = {
    demo: { workload: "", volume: "" },
    other: { workload: "", volume: "" },
  };
  beforeAll(async () => {
    for (const org of ["demo", "other"] as Org[]) {
      subjects[org].workload = (
        await create(s, rental({ name: "evt" }), org, TOKEN[org] ?? "demo-token")
      ).uid;
      const vol = { name: "evt", size_in_mb: 1024, resource_name: "gpu-rental-small" };
      subjects[org].volume = ((await post(org, "volumes", vol)) as { uid: string }).uid;
    }
  });

  const LISTS: List[] = [
    {
      name: "workloads",
      path: (org) => `/orgs/${org}/workloads`,
      add: async (org, i) =>
        (await create(s, rental({ name: `w${i}` }), org, TOKEN[org] ?? "demo-token")).uid as string,
      remove: (org, uid) => del(org, `workloads/${uid}`),
    },
    {
      name: "volumes",
      path: (org) => `/orgs/${org}/volumes`,
      add: async (org, i) =>
        (
          (await post(org, "volumes", {
            name: `v${i}`,
            size_in_mb: 1024,
            resource_name: "gpu-rental-small",
          })) as any
        ).uid,
      remove: (org, uid) => del(org, `volumes/${uid}`),
    },
    {
      name: "ssh-keys",
      path: (org) => `/orgs/${org}/ssh-keys`,
      add: async (org, i) =>
        ((await post(org, "ssh-keys", { name: `k${i}`, ssh_key: PUBLIC_KEY })) as any).uid,
      remove: (org, uid) => del(org, `ssh-keys/${uid}`),
    },
    {
      name: "templates",
      path: (org) => `/orgs/${org}/templates`,
      add: async (org, i) =>
        (
          (await post(org, "templates", {
            name: `t${i}`,
            type: "RENTAL",
            manifest: { type: "RENTAL", name: "web", image: "nginx:1.27", resource_name: "gpu-rental-small" },
          })) as any
        ).uid,
      remove: (org, uid) => del(org, `templates/${uid}`),
    },
    {
      name: "sandbox-templates",
      path: (org) => `/orgs/${org}/sandbox-templates`,
      add: async (org, i) =>
        putSandboxTemplate(s, { uid: `stpl-${org}-${i}-${Date.now()}`, org, status: "READY" }),
      remove: (org, uid) => del(org, `sandbox-templates/${uid}`),
    },
    {
      name: "workload events",
      path: (org) => `/orgs/${org}/workloads/${subjects[org].workload}/events`,
      add: async (org) => {
        await post(org, `workloads/${subjects[org].workload}/deploy`, undefined);
        await post(org, `workloads/${subjects[org].workload}/suspend`, undefined);
      },
    },
    {
      name: "volume events",
      path: (org) => `/orgs/${org}/volumes/${subjects[org].volume}/events`,
      add: async (org) => {
        const mount = `workloads/${subjects[org].workload}/volumes/${subjects[org].volume}`;
        await ok(call(s, "PUT", `/orgs/${org}/${mount}`, { mount_path: "/data" }, { token: TOKEN[org] }));
        await del(org, mount);
      },
    },
  ];

  /** Every item key of the org's list, walked one per page; the cursors handed out on the way. */
  async function walk(org: Org, path: string) {
    const keys: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 200; n++) {
      const q: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : "?limit=1";
      const page = await get(org, `${path}${q}`);
      expect(page.status, page.text).toBe(200);
      keys.push(...page.body.items.map((x: any) => x.uid ?? JSON.stringify(x)));
      cursor = page.body.next_cursor;
      if (!cursor) return { keys, cursors };
      cursors.push(cursor);
    }
    throw new Error(`${path}: the walk does not end`);
  }

  const all = async (org: Org, path: string) =>
    (await get(org, path)).body.items.map((x: any) => x.uid ?? JSON.stringify(x)) as string[];

  /** What the list answers to a cursor that is not one. */
  const malformed = (org: Org, path: string) => get(org, `${path}?cursor=not-a-cursor`);

  const stale: { org: Org; path: string; cursor: string }[] = [];

  for (const list of LISTS) {
    it(`${list.name}: a walk sees every item once, and only the list's own cursors are taken`, async () => {
      for (const org of ["demo", "other"] as Org[]) for (let i = 0; i < 3; i++) await list.add(org, i);
      const demo = await walk("demo", list.path("demo"));
      const other = await walk("other", list.path("other"));
      expect(demo.keys).toEqual(await all("demo", list.path("demo")));
      expect(new Set(demo.keys).size).toBe(demo.keys.length);
      expect(demo.cursors.length).toBeGreaterThanOrEqual(2);
      stale.push({ org: "demo", path: list.path("demo"), cursor: demo.cursors[0]! });

      const refused = await malformed("demo", list.path("demo"));
      expect(refused.status).toBe(404);
      expect(refused.body.reason).toBe("CURSOR_NOT_FOUND");
      const real = demo.cursors[0]!;
      const flip = (c: string, i: number) => c.slice(0, i) + (c[i] === "A" ? "B" : "A") + c.slice(i + 1);
      const otherItem = other.keys.find((k) => !k.startsWith("{") && !demo.keys.includes(k));
      const bad: Record<string, string> = {
        forged: "A".repeat(real.length),
        "altered (first byte)": flip(real, 0),
        "altered (last byte)": flip(real, real.length - 1),
        "another org's cursor of this list": other.cursors[0]!,
        "another list's cursor": list.name === "volumes" ? stale[0]!.cursor : await walkCursorOf("volumes"),
        "an unknown UID": "vol-0000000000000000",
        ...(otherItem ? { "another org's UID": otherItem } : {}),
      };
      for (const [what, cursor] of Object.entries(bad)) {
        const r = await get("demo", `${list.path("demo")}?cursor=${encodeURIComponent(cursor)}`);
        expect({ status: r.status, body: r.body }, `${list.name}: ${what}`).toEqual({
          status: refused.status,
          body: refused.body,
        });
      }
    });

    if (list.remove) {
      it(`${list.name}: a walk survives deletion of the item it stopped at`, async () => {
        for (let i = 0; i < 3; i++) await list.add("demo", 10 + i);
        const before = await all("demo", list.path("demo"));
        // The page stops at the one but last item (one this test made), which is then deleted.
        const first = await get("demo", `${list.path("demo")}?limit=${before.length - 1}`);
        const stoppedAt = first.body.items.at(-1).uid as string;
        expect(stoppedAt).toBe(before.at(-2));
        await list.remove!("demo", stoppedAt);
        const next = await get(
          "demo",
          `${list.path("demo")}?cursor=${encodeURIComponent(first.body.next_cursor)}`,
        );
        expect(next.status, next.text).toBe(200);
        expect(next.body.items.map((x: any) => x.uid)).toEqual([before.at(-1)]);
      });
    }
  }

  it("every list words a bad limit or an empty cursor alike, naming the parameter and the rule", async () => {
    const BAD: Record<string, string> = {
      "limit=0": "limit must be at least 1",
      "limit=1001": "limit must be at most 1000",
      "limit=1.5": "limit must be an integer",
      "limit=ten": "limit: must be a number",
      "cursor=": "cursor must not be empty",
    };
    for (const list of LISTS)
      for (const [query, words] of Object.entries(BAD)) {
        const r = await get("demo", `${list.path("demo")}?${query}`);
        expect({ status: r.status, body: r.body }, `${list.name}?${query}`).toEqual({
          status: 400,
          body: { reason: "INVALID_QUERY", error: words },
        });
      }
  });

  /** A cursor of the demo org's volume list. */
  async function walkCursorOf(name: string): Promise<string> {
    const page = await get("demo", `/orgs/demo/${name}?limit=1`);
    return page.body.next_cursor as string;
  }

  it("a cursor of another org's item, as in GET /orgs/other/volumes?cursor=<a demo volume>, is not told apart", async () => {
    const mine = (await all("demo", "/orgs/demo/volumes"))[0]!;
    const asOther = await get("other", `/orgs/other/volumes?cursor=${mine}`);
    const unknown = await get("other", "/orgs/other/volumes?cursor=vol-0123456789abcdef");
    expect(asOther.status).toBe(404);
    expect(asOther.body).toEqual(unknown.body);
    expect(asOther.text).not.toContain(mine);
  });

  it("a cursor from before an admin reset answers like a malformed one", async () => {
    expect(stale.length).toBeGreaterThan(0);
    expect((await adminCall(s, "POST", "/reset")).status).toBe(200);
    for (const { org, path, cursor } of stale.filter(
      (x) => !x.path.includes("/events") && !/workloads\/|volumes\//.test(x.path),
    )) {
      const r = await get(org, `${path}?cursor=${encodeURIComponent(cursor)}`);
      const refused = await malformed(org, path);
      expect({ status: r.status, body: r.body }, path).toEqual({
        status: refused.status,
        body: refused.body,
      });
    }
  });
});
