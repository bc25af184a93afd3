/** A front end's session (provider/frontend/): the client made from the settings, the calls' contexts, cancel. */
import { describe, expect, it } from "vitest";
import { CwsClient, sharedRateGate, type CwsClientOptions } from "../../../client/index.ts";
import { Session } from "../../../provider/frontend/session.ts";

const SETTINGS = { baseUrl: "https://api.example.com/v3", org: "demo", token: "tok" };

describe("the session of a front end", () => {
  it("refuses a call before it is configured, and says what is wrong with the settings", async () => {
    const session = new Session(() => CwsClient, "cws:baseUrl");
    await expect(session.client()).rejects.toThrow("the cws provider was not configured");
    session.configure(new Error("set cws:org"));
    await expect(
      session.run(
        () => {},
        undefined,
        async () => 1,
      ),
    ).rejects.toThrow("set cws:org");
  });

  it("keeps its client while the settings stay the same, and makes it only when a call needs it", async () => {
    let loaded = 0;
    const session = new Session(() => (loaded++, CwsClient), "cws:baseUrl");
    session.configure(SETTINGS);
    expect(loaded).toBe(0);
    const client = await session.client();
    session.configure({ ...SETTINGS });
    expect(await session.client()).toBe(client);
    session.configure({ ...SETTINGS, org: "other" });
    expect(await session.client()).not.toBe(client);
    expect(loaded).toBe(2);
  });

  it("loads the client class asynchronously when the front end hands it over so, for the settings of the latest Configure", async () => {
    let release!: () => void;
    const loading = new Promise<void>((r) => (release = r));
    const session = new Session(async () => (await loading, CwsClient), "cws:baseUrl");
    session.configure(SETTINGS);
    const pending = session.client();
    session.configure({ ...SETTINGS, org: "other" });
    release();
    const client = await pending;
    expect(client).toBeInstanceOf(CwsClient);
    expect(await session.client()).toBe(client);
  });

  it("makes every client of the process share one rate gate, capped by maxRequestsPerSecond", async () => {
    const made: CwsClientOptions[] = [];
    class Recording extends CwsClient {
      constructor(opts: CwsClientOptions) {
        super(opts);
        made.push(opts);
      }
    }
    const a = new Session(() => Recording, "cws:baseUrl");
    const b = new Session(() => Recording, "cws:baseUrl");
    const settings = { ...SETTINGS, baseUrl: "https://gate.example.com/v3" };
    a.configure({ ...settings, maxRequestsPerSecond: 20 });
    await a.client();
    expect(made[0]).toMatchObject({ rateGate: "shared", maxRequestsPerSecond: 20 });
    expect(sharedRateGate(settings.baseUrl, "demo", { maxRequestsPerSecond: 20 }).maxRequestsPerSecond).toBe(
      20,
    );
    b.configure(settings);
    await b.client();
    expect(made[1]).toMatchObject({ rateGate: "shared" });
    expect(sharedRateGate(settings.baseUrl, "demo").maxRequestsPerSecond).toBeUndefined();
  });

  it("gives each call its context, and cancel aborts every call running", async () => {
    const session = new Session(() => CwsClient, "cws:baseUrl");
    session.configure(SETTINGS);
    const logged: string[] = [];
    let started!: () => void;
    const working = new Promise<void>((r) => (started = r));
    const running = session.run(
      (m) => logged.push(m),
      5000,
      (ctx) =>
        new Promise((resolve) => {
          ctx.log(`timeout ${ctx.timeoutMs}`);
          ctx.signal!.addEventListener("abort", () => resolve((ctx.signal!.reason as Error).message));
          started();
        }),
    );
    await working;
    session.cancel();
    await expect(running).resolves.toBe("the operation was cancelled");
    expect(logged).toEqual(["timeout 5000"]);
  });

  it("a call cancelled while the client loads never starts", async () => {
    const session = new Session(async () => CwsClient, "cws:baseUrl");
    session.configure(SETTINGS);
    let started = false;
    const running = session.run(
      () => {},
      undefined,
      async () => (started = true),
    );
    session.cancel();
    await expect(running).rejects.toThrow("the operation was cancelled");
    expect(started).toBe(false);
  });
});
