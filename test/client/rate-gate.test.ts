// The rate gate on a fake clock: pauses, the window of requests in flight, the buckets, the order.
import { describe, expect, it } from "vitest";
import { RateGate, sharedRateGate, type GateClock, type GatePermit } from "../../client/index.ts";

/** A clock whose time moves only when the test says; timers fire in order as it passes them. */
class FakeClock implements GateClock {
  t = 1_000_000;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #id = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    this.#timers.set(++this.#id, { at: this.t + ms, fn });
    return this.#id;
  };
  clearTimeout = (h: unknown) => void this.#timers.delete(h as number);
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const next = [...this.#timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.#timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    this.t = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** Asks the gate for `n` permits; `granted` fills as they come. */
function ask(gate: RateGate, n: number, priority?: "poll") {
  const granted: GatePermit[] = [];
  const order: number[] = [];
  for (let i = 0; i < n; i++)
    void gate.acquire({ priority }).then((p) => {
      granted.push(p);
      order.push(i);
    });
  return { granted, order };
}

/** A gate past its first answer (from a service that does not limit): the window is open. */
async function warm(gate: RateGate): Promise<RateGate> {
  (await gate.acquire()).release({ status: 200 });
  return gate;
}

const limited = (remaining: number, reset = 1, limit = 50) => ({
  "ratelimit-limit": String(limit),
  "ratelimit-remaining": String(remaining),
  "ratelimit-reset": String(reset),
});

describe("rate gate", () => {
  it("sends one request alone until the first answer, then opens the window by one per answer", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock });
    const { granted } = ask(gate, 21);
    await flush();
    expect(granted).toHaveLength(1);
    granted.shift()!.release({ status: 200 });
    await flush();
    expect(granted).toHaveLength(17);
    expect(gate.stats()).toMatchObject({ sent: 18, inFlight: 17, waiting: 3, window: 17 });
    for (const p of granted.slice(0, 2)) p.release({ status: 200 });
    await flush();
    expect(granted).toHaveLength(20);
    for (const p of granted.slice(2)) p.release({ status: 200 });
    expect(gate.stats()).toMatchObject({ inFlight: 0, window: 37 });
    for (let i = 0; i < 40; i++) (await gate.acquire()).release({ status: 201 });
    expect(gate.stats().window).toBe(64);
  });

  it("a 429 pauses every caller until its Retry-After has passed, and halves the window once per burst", async () => {
    const clock = new FakeClock();
    const gate = await warm(new RateGate({ clock, maxInFlight: 8 }));
    const first = ask(gate, 8);
    await flush();
    expect(first.granted).toHaveLength(8);
    // Three of the burst are refused: one pause, one halving (they were all sent before it).
    for (const p of first.granted.slice(0, 3)) p.release({ status: 429, headers: { "retry-after": "2" } });
    expect(gate.stats()).toMatchObject({ rateLimited: 3, pauses: 1, window: 4 });
    const later = ask(gate, 4);
    await clock.advance(1_999);
    expect(later.granted).toHaveLength(0);
    await clock.advance(1);
    // 5 still in flight, window 4: none yet; as answers come back, places free.
    expect(later.granted).toHaveLength(0);
    for (const p of first.granted.slice(3)) p.release({ status: 200 });
    await flush();
    expect(later.granted).toHaveLength(4);
    // A 429 of a request sent after the halving halves again.
    later.granted[0]!.release({ status: 429, headers: { "retry-after": "1" } });
    expect(gate.stats().window).toBe(2);
  });

  it("without Retry-After, a 429 pauses for RateLimit-Reset, else 1 s", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock });
    const a = ask(gate, 1);
    await flush();
    a.granted[0]!.release({ status: 429, headers: { "ratelimit-reset": "3" } });
    const b = ask(gate, 1);
    await clock.advance(2_999);
    expect(b.granted).toHaveLength(0);
    await clock.advance(1);
    expect(b.granted).toHaveLength(1);
    b.granted[0]!.release({ status: 429 });
    const c = ask(gate, 1);
    await clock.advance(999);
    expect(c.granted).toHaveLength(0);
    await clock.advance(1);
    expect(c.granted).toHaveLength(1);
  });

  it("widens the window again by 1/window per answer, up to its maximum", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock, maxInFlight: 4 });
    const a = ask(gate, 1);
    await flush();
    a.granted[0]!.release({ status: 429, headers: { "retry-after": "0" } });
    expect(gate.stats().window).toBe(2);
    for (let i = 0; i < 4; i++) {
      const r = ask(gate, 1);
      await clock.advance(0);
      r.granted[0]!.release({ status: 200 });
    }
    // After a 429 the window widens by 1/window per answer.
    expect(gate.stats().window).toBe(3);
    for (let i = 0; i < 10; i++) {
      const r = ask(gate, 1);
      await clock.advance(0);
      r.granted[0]!.release({ status: 200 });
    }
    expect(gate.stats().window).toBe(4);
  });

  it("maxRequestsPerSecond: a bucket of the rate rounded up, refilled at the rate", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock, maxRequestsPerSecond: 5 });
    const { granted } = ask(gate, 12);
    await flush();
    expect(granted).toHaveLength(1);
    granted[0]!.release({ status: 200 });
    await flush();
    expect(granted).toHaveLength(5);
    await clock.advance(199);
    expect(granted).toHaveLength(5);
    await clock.advance(1);
    expect(granted).toHaveLength(6);
    await clock.advance(1_000);
    expect(granted).toHaveLength(11);
    gate.setMaxRequestsPerSecond(undefined);
    await flush();
    expect(granted).toHaveLength(12);
  });

  it("keeps a copy of the service's bucket from its RateLimit-* headers and waits for its tokens", async () => {
    const clock = new FakeClock();
    const gate = await warm(new RateGate({ clock }));
    const a = ask(gate, 3);
    await flush();
    // The service (50 a second, 50 at once) has 1 left after the first; 2 more are in flight.
    a.granted[0]!.release({ status: 200, headers: limited(1) });
    expect(gate.stats().learnedRate).toBe(48);
    const b = ask(gate, 2);
    await flush();
    expect(b.granted).toHaveLength(0);
    a.granted[1]!.release({ status: 200, headers: limited(0) });
    a.granted[2]!.release({ status: 200, headers: limited(0) });
    expect(gate.stats().learnedRate).toBe(49);
    // The three were sent together, so each answer is counted against the others' too: -1
    // tokens, two short of the next request at one every 1/49 s (41 ms), then 21 ms each.
    await clock.advance(40);
    expect(b.granted).toHaveLength(0);
    await clock.advance(1);
    expect(b.granted).toHaveLength(1);
    await clock.advance(21);
    expect(b.granted).toHaveLength(2);
    // An answer without the headers: the service no longer limits; the copy goes.
    b.granted[0]!.release({ status: 200, headers: {} });
    expect(gate.stats().learnedRate).toBeUndefined();
    const c = ask(gate, 5);
    await flush();
    expect(c.granted).toHaveLength(5);
  });

  it("counts every unanswered request against what an answer shows left, and never trusts a late answer", async () => {
    const clock = new FakeClock();
    const gate = await warm(new RateGate({ clock }));
    const a = ask(gate, 4);
    await flush();
    // The service took the last one sent first (5 left after it): the 3 others may each take one.
    a.granted[3]!.release({ status: 200, headers: limited(5, 1, 10) });
    const b = ask(gate, 4);
    await flush();
    expect(b.granted).toHaveLength(2);
    // An answer to a request sent earlier, arriving late, shows more left: stale, not trusted.
    a.granted[0]!.release({ status: 200, headers: limited(8, 1, 10) });
    await flush();
    expect(b.granted).toHaveLength(2);
    // An answer to a request sent later does raise the count: 8 less the 3 unanswered and the
    // one answered while it was out (the service may have taken it after): 4, 2 of them used.
    b.granted[0]!.release({ status: 200, headers: limited(8, 1, 10) });
    await flush();
    expect(b.granted).toHaveLength(4);
    // A newer answer showing less does not lower it; an older one arriving after it is stale
    // even though the newer one raised nothing.
    b.granted[1]!.release({ status: 200, headers: limited(0, 1, 10) });
    a.granted[2]!.release({ status: 200, headers: limited(9, 1, 10) });
    const more = ask(gate, 2);
    await flush();
    expect(more.granted).toHaveLength(2);
    // A 429 sets it to what the service says, even below the count kept here: 0 less the 4
    // unanswered and the 5 answered while it was out, refilled at 9 a second (the rate an answer
    // showing 0 left gave): 10 tokens short, 1.112 s.
    a.granted[1]!.release({ status: 429, headers: { "retry-after": "0", ...limited(0, 1, 10) } });
    const c = ask(gate, 1);
    await clock.advance(1_111);
    expect(c.granted).toHaveLength(0);
    await clock.advance(1);
    expect(c.granted).toHaveLength(1);
  });

  it("before the copy's refill is known, one request at a time finds out", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock });
    const a = ask(gate, 1);
    await flush();
    // Remaining 0 with Reset 0 says nothing of the rate.
    a.granted[0]!.release({ status: 200, headers: limited(0, 0) });
    const b = ask(gate, 3);
    await flush();
    expect(b.granted).toHaveLength(1);
    b.granted[0]!.release({ status: 200, headers: limited(5, 1) });
    await flush();
    expect(b.granted).toHaveLength(3);
  });

  it("serves waiting requests in order, polls after every other request", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock, maxRequestsPerSecond: 1 });
    const first = ask(gate, 1);
    await flush();
    first.granted[0]!.release({ status: 200 });
    const polls = ask(gate, 2, "poll");
    const work = ask(gate, 2);
    await clock.advance(1_000);
    expect(work.granted).toHaveLength(1);
    expect(polls.granted).toHaveLength(0);
    await clock.advance(1_000);
    expect(work.order).toEqual([0, 1]);
    expect(polls.granted).toHaveLength(0);
    await clock.advance(2_000);
    expect(polls.order).toEqual([0, 1]);
    expect(first.granted).toHaveLength(1);
  });

  it("a waiting request leaves the queue when its signal aborts", async () => {
    const clock = new FakeClock();
    const gate = new RateGate({ clock, maxRequestsPerSecond: 1 });
    (await gate.acquire()).release({ status: 200 });
    const ac = new AbortController();
    const waiting = gate.acquire({ signal: ac.signal });
    const next = ask(gate, 1);
    ac.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    expect(gate.stats().waiting).toBe(1);
    await clock.advance(1_000);
    expect(next.granted).toHaveLength(1);
  });

  it("a permit released twice counts once", async () => {
    const gate = new RateGate({ clock: new FakeClock() });
    const p = await gate.acquire();
    p.release({ status: 429, headers: { "retry-after": "1" } });
    p.release();
    expect(gate.stats()).toMatchObject({ inFlight: 0, rateLimited: 1 });
  });

  it("one gate per process for a service and org, whatever the trailing slash", () => {
    const a = sharedRateGate("http://gate.test/v3", "demo");
    expect(sharedRateGate("http://gate.test/v3/", "demo")).toBe(a);
    expect(sharedRateGate("http://gate.test/v3", "other")).not.toBe(a);
    sharedRateGate("http://gate.test/v3", "demo", { maxRequestsPerSecond: 3 });
    expect(a.maxRequestsPerSecond).toBe(3);
    expect(() => new RateGate({ maxRequestsPerSecond: 0 })).toThrow(/positive/);
  });
});
