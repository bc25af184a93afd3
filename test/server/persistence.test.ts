/* eslint-disable @typescript-eslint/no-explicit-any */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { Duplex } from "node:stream";
import { Pool } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { durableResponses } from "../../server/http/durable.ts";
import { DEFAULT_SEED } from "../../server/index.ts";
import { Store } from "../../server/store/store.ts";
import { FORMAT_VERSION } from "../../server/store/tables.ts";
import { call, DEMO_TOKEN, expectError, type ApiServer } from "../helpers/http.ts";
import { startTestServer } from "../helpers/server.ts";
import { create, createSshKey, createVolume, rental, waitForStatus } from "./fixtures.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "cws-data-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const h = { authorization: `Bearer ${DEMO_TOKEN}`, "content-type": "application/json" };

/** Every workload UID of the demo org, page by page. */
async function allWorkloadUids(s: ApiServer): Promise<Set<string>> {
  const uids = new Set<string>();
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `?limit=500&cursor=${cursor}` : "?limit=500";
    const page = (await call(s, "GET", `/orgs/demo/workloads${q}`)).body;
    for (const w of page.items) uids.add(w.uid);
    cursor = page.next_cursor;
  } while (cursor);
  return uids;
}

describe("persistence", () => {
  it("keeps state across a restart with the same data dir", async () => {
    const a = await startTestServer({ dataDir: true });
    const key = await createSshKey(a, "kept");
    const w = await create(a, rental({ ssh_keys: [key] }));
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(a, w.uid, "running");
    const vol = await createVolume(a, "v", 5);

    const b = await a.restart();
    try {
      const g = await call(b, "GET", `/orgs/demo/workloads/${w.uid}`);
      expect(g.body).toMatchObject({ uid: w.uid, ssh_keys: [key], state: { status: "running" } });
      expect((await call(b, "GET", `/orgs/demo/volumes/${vol}`)).status).toBe(200);
      expect((await call(b, "GET", `/orgs/demo/workloads/${w.uid}/events`)).body.items.length).toBe(3);
      // creation order and cursors survive too
      const w2 = await create(b, rental({ name: "after" }));
      expect((await call(b, "GET", "/orgs/demo/workloads")).body.items.map((x: any) => x.uid)).toEqual([
        w.uid,
        w2.uid,
      ]);
    } finally {
      await b.close();
    }
  });

  it("resumes provisioning after a restart: a workload left provisioning reaches running", async () => {
    const a = await startTestServer({ dataDir: true, provisionDelayMs: 400 });
    const w = await create(a, rental());
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    const b = await a.restart();
    try {
      expect((await call(b, "GET", `/orgs/demo/workloads/${w.uid}/state`)).body.status).toBe("provisioning");
      await waitForStatus(b, w.uid, "running");
    } finally {
      await b.close();
    }
  });

  it("survives kill -9 of `cws serve` between requests", async () => {
    const first = await startTestServer({ subprocess: true, dataDir: true });
    const created = (await call(first, "POST", "/orgs/demo/workloads", rental())).body;
    await call(first, "POST", `/orgs/demo/workloads/${created.uid}/deploy`);
    const exited = new Promise((r) => first.process.on("exit", r));
    first.process.kill("SIGKILL");
    await exited;
    const second = await first.restart();
    try {
      const g = (await call(second, "GET", `/orgs/demo/workloads/${created.uid}`)).body;
      expect(g.uid).toBe(created.uid);
      expect(["provisioning", "running"]).toContain(g.state.status);
    } finally {
      await second.close();
    }
  });

  it("loses no acknowledged create when `cws serve` is killed -9 amid concurrent creates", async () => {
    // Each group commit waits 30 ms: a reply sent before its commit would leave a wide window
    // in which the kill finds acknowledged creates not yet on disk.
    const first = await startTestServer({
      subprocess: true,
      dataDir: true,
      env: { CWS_COMMIT_DELAY_MS: "30" },
    });
    const pool = new Pool(first.origin, { connections: 40 });
    const acked: string[] = [];
    let killed = false;
    let lostInFlight = 0;
    const exited = new Promise((r) => first.process.on("exit", r));
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        for (let n = 0; !killed; n++) {
          try {
            const res = await pool.request({
              method: "POST",
              path: "/v3/orgs/demo/workloads",
              headers: h,
              body: JSON.stringify(rental({ name: `load-${i}-${n}` })),
            });
            const body = (await res.body.json()) as any;
            if (res.statusCode !== 201)
              throw new Error(`create answered ${res.statusCode}: ${JSON.stringify(body)}`);
            acked.push(body.uid);
            // The kill comes a moment after the 300th reply, not with it: by then every worker
            // has sent its next create, which waits for its commit. (Killed with the reply, a
            // kill could find every reply of the last group already received.)
            if (acked.length === 300)
              setTimeout(() => {
                killed = true;
                first.process.kill("SIGKILL");
              }, 10);
          } catch (e) {
            if (!killed) throw e;
            lostInFlight++;
          }
        }
      }),
    );
    await exited;
    await pool.destroy();
    // The kill met requests under way: the server had work it had not answered.
    expect(lostInFlight).toBeGreaterThan(0);

    const second = await first.restart();
    try {
      const stored = await allWorkloadUids(second);
      const missing = acked.filter((uid) => !stored.has(uid));
      expect(missing).toEqual([]);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("starts from a seed file instead of the built-in seed", async () => {
    const dir = tmp();
    const file = join(dir, "seed.json");
    writeFileSync(
      file,
      JSON.stringify({ ...DEFAULT_SEED, orgs: [{ slug: "acme", tokens: ["acme-token"], credits: 3 }] }),
    );
    const s = await startTestServer({ seed: file });
    try {
      expect((await call(s, "GET", "/orgs/acme/workloads", undefined, { token: "acme-token" })).status).toBe(
        200,
      );
      expect((await call(s, "GET", "/orgs/demo/workloads")).status).toBe(401);
    } finally {
      await s.close();
    }
    writeFileSync(file, JSON.stringify({ orgs: [] }));
    await expect(startTestServer({ seed: file })).rejects.toThrow(/seed file/);
  });
});

describe("group commit", () => {
  it("commits the writes of a turn together, at its end: another connection sees them only then", async () => {
    const dir = tmp();
    const store = new Store(dir);
    const other = new DatabaseSync(join(dir, "cws.sqlite"), { readOnly: true });
    const seen = () => other.prepare("SELECT value FROM kv WHERE key = 'k'").get();
    try {
      store.kvSet("k", 1);
      store.addEvent("test", "subject", { n: 1 });
      expect(store.dirty).toBe(true);
      expect(seen()).toBeUndefined();
      await store.durable();
      expect(store.dirty).toBe(false);
      expect(seen()).toEqual({ value: "1" });
    } finally {
      other.close();
      store.close();
    }
  });

  it("rolls back a failed transaction alone; the writes around it in the same turn land", async () => {
    const store = new Store();
    try {
      store.kvSet("before", 1);
      const kept = store.addEvent("test", "s", { n: 1 });
      let dropped = 0;
      expect(() =>
        store.transaction(() => {
          store.kvSet("inside", 2);
          dropped = store.addEvent("test", "s", { n: 2 }).id;
          throw new Error("refused");
        }),
      ).toThrow("refused");
      store.kvSet("after", 3);
      // Read before the commit: what the group holds.
      expect(store.kvGet("inside")).toBeUndefined();
      expect(store.events("test", "s").map((e) => e.record)).toEqual([{ n: 1 }]);
      await store.durable();
      expect([store.kvGet("before"), store.kvGet("inside"), store.kvGet("after")]).toEqual([1, undefined, 3]);
      expect(store.events("test", "s").map((e) => e.record)).toEqual([{ n: 1 }]);
      expect(store.eventExists("test", "s", kept.id)).toBe(true);
      expect(store.eventExists("test", "s", dropped)).toBe(false);
    } finally {
      store.close();
    }
  });

  it("holds a response a route writes itself until the commit of the writes before it", async () => {
    const store = new Store();
    const Response = durableResponses(store);
    const respond = (body: string) => {
      let out = "";
      const socket = new Duplex({
        write(chunk, _enc, cb) {
          out += String(chunk);
          cb();
        },
        read() {},
      });
      const res = new Response(new IncomingMessage(socket as never));
      res.assignSocket(socket as never);
      res.writeHead(200, { "content-type": "text/plain" });
      res.write(body);
      res.end();
      return () => out;
    };
    try {
      store.kvSet("k", 1);
      const held = respond("after a write");
      expect(held()).toBe("");
      await store.durable();
      expect(held()).toMatch(/^HTTP\/1.1 200 OK\r\n[\s\S]*after a write/);
      const direct = respond("nothing pending");
      expect(direct()).toMatch(/nothing pending/);
    } finally {
      store.close();
    }
  });

  it("answers 500 when a commit fails, and acknowledges nothing from then on", async () => {
    const s = await startTestServer();
    try {
      const store = s.context.store;
      // The database refuses to write the workload named "lost", as a full disk would.
      store.db.exec(`
        CREATE TRIGGER refuse_lost BEFORE INSERT ON docs WHEN NEW.data LIKE '%"name":"lost"%'
        BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;
      `);
      const before = await create(s, rental({ name: "saved" }));
      const failing = await call(s, "POST", "/orgs/demo/workloads", rental({ name: "lost" }));
      expect(expectError(failing, 500, "INTERNAL_ERROR")).toMatch(/could not save its state/);
      await expect(store.durable()).rejects.toThrow(/could not commit/);
      // Memory may hold what the database lost: no state is answered any more, not even reads.
      expectError(await call(s, "GET", `/orgs/demo/workloads/${before.uid}`), 500, "INTERNAL_ERROR");
    } finally {
      await s.close();
    }
  });

  it("converts a database of the earlier layout (documents keyed by kind and UID) on open", async () => {
    const dataDir = tmp();
    const a = await startTestServer({ dataDir });
    const w = await create(a, rental());
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(a, w.uid, "running");
    const w2 = await create(a, rental({ name: "second" }));
    await a.close();
    const db = new DatabaseSync(join(dataDir, "cws.sqlite"));
    db.exec(`
      CREATE TABLE docs0 (kind TEXT NOT NULL, uid TEXT NOT NULL, org TEXT, seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, uid));
      INSERT INTO docs0 SELECT kind, uid, org, seq, data FROM docs;
      DROP TABLE docs;
      ALTER TABLE docs0 RENAME TO docs;
      CREATE INDEX events_subject ON events (kind, subject, id);
      PRAGMA user_version = 0;
    `);
    db.close();

    const b = await startTestServer({ dataDir });
    try {
      const list = (await call(b, "GET", "/orgs/demo/workloads")).body.items.map((x: any) => x.uid);
      expect(list).toEqual([w.uid, w2.uid]);
      const events = (await call(b, "GET", `/orgs/demo/workloads/${w.uid}/events`)).body.items;
      expect(events.map((e: any) => e.event_type)).toEqual(["CREATED", "STATUS_CHANGE", "STATUS_CHANGE"]);
      const w3 = await create(b, rental({ name: "third" }));
      expect((await call(b, "GET", "/orgs/demo/workloads")).body.items.map((x: any) => x.uid)).toEqual([
        w.uid,
        w2.uid,
        w3.uid,
      ]);
    } finally {
      await b.close();
    }
    const after = new DatabaseSync(join(dataDir, "cws.sqlite"), { readOnly: true });
    try {
      expect(after.prepare("PRAGMA user_version").get()).toEqual({ user_version: FORMAT_VERSION });
      expect(
        after.prepare("SELECT name FROM sqlite_master WHERE name = 'events_subject'").get(),
      ).toBeUndefined();
    } finally {
      after.close();
    }
  });

  /**
   * Three volumes, a cursor after the second, the last two deleted, the server restarted
   * (`between` may rewrite the data dir): a volume created then is on the cursor's next page,
   * since no position is handed out twice.
   */
  async function cursorAcrossDeletes(between: (file: string) => void): Promise<string> {
    const dataDir = tmp();
    const a = await startTestServer({ dataDir });
    const [v1, v2, v3] = [
      await createVolume(a, "v1", 10),
      await createVolume(a, "v2", 10),
      await createVolume(a, "v3", 10),
    ];
    const page = (await call(a, "GET", "/orgs/demo/volumes?limit=2")).body;
    expect(page.items.map((v: any) => v.uid)).toEqual([v1, v2]);
    for (const uid of [v2, v3])
      expect((await call(a, "DELETE", `/orgs/demo/volumes/${uid}`)).status).toBe(204);
    await a.close();
    const file = join(dataDir, "cws.sqlite");
    between(file);
    const b = await startTestServer({ dataDir });
    try {
      const v4 = await createVolume(b, "v4", 10);
      const next = (await call(b, "GET", `/orgs/demo/volumes?cursor=${page.next_cursor}`)).body;
      expect(next.items.map((v: any) => v.uid)).toEqual([v4]);
    } finally {
      await b.close();
    }
    return file;
  }

  it("hands no creation position out twice across a restart: a cursor after deleted items finds what came since", async () => {
    await cursorAcrossDeletes(() => {});
  });

  it("converts a format 1 data dir: its row per deleted document becomes the highest position handed out", async () => {
    const file = await cursorAcrossDeletes((file) => {
      // What a format 1 server left: a `gone` row per deleted document and no `last_seq`.
      const db = new DatabaseSync(file);
      const { seq } = db.prepare("SELECT value AS seq FROM kv WHERE key = 'last_seq'").get() as {
        seq: string;
      };
      db.exec(`
        CREATE TABLE gone (kind TEXT NOT NULL, uid TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (kind, uid));
        INSERT INTO gone VALUES ('volume', 'vol-a', ${Number(seq) - 1}), ('volume', 'vol-b', ${Number(seq)});
        DELETE FROM kv WHERE key = 'last_seq';
        PRAGMA user_version = 1;
      `);
      db.close();
    });
    const after = new DatabaseSync(file, { readOnly: true });
    try {
      expect(after.prepare("PRAGMA user_version").get()).toEqual({ user_version: FORMAT_VERSION });
      expect(after.prepare("SELECT name FROM sqlite_master WHERE name = 'gone'").get()).toBeUndefined();
    } finally {
      after.close();
    }
  });

  it("refuses a data dir of a newer format, naming the file and both formats, and leaves it untouched", async () => {
    const dataDir = tmp();
    const a = await startTestServer({ dataDir });
    await create(a, rental());
    await a.close();
    const file = join(dataDir, "cws.sqlite");
    const db = new DatabaseSync(file);
    const newer = FORMAT_VERSION + 1;
    db.exec(`PRAGMA journal_mode = DELETE; PRAGMA user_version = ${newer};`);
    db.close();
    const hash = () => createHash("sha256").update(readFileSync(file)).digest("hex");
    const before = hash();

    expect(() => new Store(dataDir)).toThrow(
      `${file} was written by a newer reference server (data format ${newer}; this server reads formats up to ${FORMAT_VERSION}). ` +
        "Nothing in it was changed",
    );
    const bin = fileURLToPath(new URL("../../bin/cws", import.meta.url));
    const run = promisify(execFile)(bin, ["serve", "--port", "0", "--data-dir", dataDir]);
    const failed = (await run.then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: number; stderr: string } | undefined;
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(
      `data format ${newer}; this server reads formats up to ${FORMAT_VERSION}`,
    );
    expect(hash()).toBe(before);
    const after = new DatabaseSync(file, { readOnly: true });
    expect(after.prepare("PRAGMA user_version").get()).toEqual({ user_version: newer });
    expect(after.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "delete" });
    after.close();
  });
});
