/**
 * Hostile traffic against a running reference server, as a team running it as a CI emulator
 * makes it: several concurrent clients on one keep-alive agent, a running sandbox that the
 * traffic execs in, forks and uploads to, log-follow streams cut after 1.5 s, WebSocket upgrades
 * (admitted and refused), admin calls, bodies that are invalid JSON, oversized, chunked or shorter
 * than their Content-Length, and odd paths (`terminals/valueOf`, `;jsessionid=x`, ...).
 *
 * Every request is timed from its first byte to its answer: the status line of a response (a
 * stream's headers count), a 101 for an upgrade, or a close of the connection by the server. A
 * request with neither after `lostAfterMs` is lost. Used by `hostile-traffic.test.ts` (a size the
 * suite affords) and `bench/hostile-traffic.ts` (the long run).
 */
import { randomBytes } from "node:crypto";
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import * as net from "node:net";

const DEMO = "Bearer demo-token";
const ADMIN = "Bearer admin-token";

/** What the traffic acts on, made once by `prepareTraffic`. */
export interface TrafficFixtures {
  origin: string;
  /** A running sandbox of the demo org. */
  sandbox: string;
  /** A terminal open in it. */
  terminal: string;
  /** A RENTAL workload (running), an SSH key and a volume of the demo org. */
  workload: string;
  key: string;
  volume: string;
}

export interface TrafficOptions {
  /** Requests to send in all. */
  requests: number;
  /** Concurrent clients (default 8), sharing one keep-alive agent of `sockets` sockets (default 16). */
  clients?: number;
  sockets?: number;
  /** A request without an answer or a close after this long is lost (default 30 s). */
  lostAfterMs?: number;
  /** Whether admin calls are part of the traffic (default true). */
  admin?: boolean;
  /** Seed of the choice of requests (default: random). */
  seed?: number;
  /** Called when a request is found lost (before it is given up) or closed: to look at the server then. */
  onLost?: (o: Outcome) => void;
  /** Requests whose label matches are left out of the traffic. */
  exclude?: RegExp;
  /** Called every `progressEvery` requests with the count done. */
  onProgress?: (done: number, report: TrafficReport) => void;
  progressEvery?: number;
}

/** How one request ended. */
export interface Outcome {
  /** What the request was (method, path pattern, what is hostile about it). */
  label: string;
  /** answered: a status came back; closed: the server closed the connection first; lost: neither. */
  kind: "answered" | "closed" | "lost";
  status?: number;
  /** From the request's start to its answer or close (for lost: to when it was given up). */
  ms: number;
  /** The error of a closed request. */
  error?: string;
  /** Whether the request went out on a socket that had carried an earlier request. */
  reused?: boolean;
  /** The client's port of the connection (the server sees it as the remote port). */
  port?: number;
}

export interface TrafficReport {
  total: number;
  answered: number;
  closed: number;
  lost: Outcome[];
  /** The slowest outcomes (answered or closed), slowest first. */
  slowest: Outcome[];
  /** The same among the requests the client sent in full (the RAW ones it never finishes left out). */
  slowestSent: Outcome[];
  /** Answers by status. */
  statuses: Record<string, number>;
  /** 5xx answers (none expected but 503 for a full pool; kept for the report). */
  serverErrors: Outcome[];
  /** Closes by request and error text. */
  closes: Record<string, number>;
  seed: number;
  elapsedMs: number;
}

/** Keeps the 10 slowest outcomes in `list`, slowest first. */
function keepSlowest(list: Outcome[], o: Outcome): void {
  if (list.length >= 10 && o.ms <= list[list.length - 1]!.ms) return;
  list.push(o);
  list.sort((a, b) => b.ms - a.ms);
  list.length = Math.min(list.length, 10);
}

/** A small seeded PRNG (mulberry32), so a run can be repeated. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Send {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, sent with a correct Content-Length (or chunked when `chunks` is set). */
  body?: string | Buffer;
  /** The body in pieces, chunked, with a pause between them. */
  chunks?: (string | Buffer)[];
  /**
   * Send `chunks` as node:http does without a Transfer-Encoding header: for a DELETE, the bytes
   * go out unframed after the headers, and the server reads them as the next request (the
   * client's own framing error: the server answers 400 and closes the connection).
   */
  unframed?: boolean;
  /** For a streamed answer: destroy the request this long after the answer's headers. */
  cutAfterMs?: number;
  /** Cut by destroying the response (the client's IncomingMessage) rather than the request. */
  cutResponse?: boolean;
}

/** One request of the traffic: sent by the shared agent, or on a raw socket of its own. */
type Plan =
  | {
      label: string;
      via: "agent";
      send: Send;
      then?: (res: IncomingMessage, body: string) => Promise<void> | void;
    }
  | { label: string; via: "raw"; bytes: (string | Buffer)[]; gapMs?: number }
  | { label: string; via: "upgrade"; send: Send };

/** The shared state of a run: fixtures, the agent, forks to clean up. */
interface Run {
  fx: TrafficFixtures;
  agent: Agent;
  lostAfterMs: number;
  onLost?: (o: Outcome) => void;
  forks: Set<string>;
  rand: () => number;
}

const json = (v: unknown): string => JSON.stringify(v);
const wsKey = (): string => randomBytes(16).toString("base64");

/** The requests of the traffic with their weights. */
function catalogue(run: Run, admin: boolean): [number, () => Plan | Promise<Plan>][] {
  const { fx } = run;
  const W = `/v3/orgs/demo/workloads/${fx.sandbox}`;
  const auth = { authorization: DEMO };
  const jsonHeaders = { ...auth, "content-type": "application/json" };
  const agentPlan = (label: string, send: Send, then?: Extract<Plan, { via: "agent" }>["then"]): Plan => ({
    label,
    via: "agent",
    send,
    then,
  });
  const get = (label: string, path: string) => agentPlan(label, { method: "GET", path, headers: auth });
  const withBody = (
    label: string,
    method: string,
    path: string,
    body: string | Buffer,
    headers: Record<string, string> = jsonHeaders,
  ) => agentPlan(label, { method, path, headers, body });
  const upgradeHeaders = (extra: Record<string, string> = {}) => ({
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": wsKey(),
    ...extra,
  });
  const list: [number, () => Plan | Promise<Plan>][] = [
    // The running sandbox: exec, files, terminals, tickets, desktop.
    [8, () => withBody("POST exec echo", "POST", `${W}/exec`, json({ cmd: "echo hi", timeout_sec: 10 }))],
    [
      1,
      () =>
        withBody(
          "POST exec sleep 1",
          "POST",
          `${W}/exec`,
          json({ cmd: "sleep 1; echo done", timeout_sec: 10 }),
        ),
    ],
    [
      5,
      () =>
        withBody(
          "PUT files",
          "PUT",
          `${W}/files`,
          json({
            path: `/workspace/f${Math.floor(run.rand() * 8)}`,
            content_b64: randomBytes(2048).toString("base64"),
          }),
        ),
    ],
    [
      1,
      () =>
        withBody(
          "PUT files 1 MiB",
          "PUT",
          `${W}/files`,
          json({ path: "/workspace/big", content_b64: randomBytes(1 << 20).toString("base64") }),
        ),
    ],
    [
      2,
      () =>
        withBody(
          "PUT files?cursor=garbage content_b64 object",
          "PUT",
          `${W}/files?cursor=garbage`,
          json({ path: "/workspace/x", content_b64: { a: 1 } }),
        ),
    ],
    [
      2,
      () => withBody("PUT files invalid JSON", "PUT", `${W}/files`, '{"path":"/workspace/x","content_b64":'),
    ],
    [3, () => get("GET files", `${W}/files?path=/workspace/f1`)],
    [3, () => get("GET terminals", `${W}/terminals`)],
    [1, () => get("GET terminals;jsessionid=x", `${W}/terminals;jsessionid=x`)],
    ...["valueOf", "toString", "constructor", "__proto__", "hasOwnProperty"].map(
      (name): [number, () => Plan] => [
        1,
        () =>
          agentPlan(`DELETE terminals/${name}`, {
            method: "DELETE",
            path: `${W}/terminals/${name}`,
            headers: auth,
          }),
      ],
    ),
    [1, () => get("GET terminals/valueOf", `${W}/terminals/valueOf`)],
    [
      1,
      () =>
        withBody("DELETE terminals/valueOf with a body", "DELETE", `${W}/terminals/valueOf`, json({ a: 1 })),
    ],
    [
      1,
      () =>
        agentPlan("DELETE terminals/valueOf chunked body", {
          method: "DELETE",
          path: `${W}/terminals/valueOf`,
          headers: jsonHeaders,
          chunks: ['{"a":', "1}"],
        }),
    ],
    [
      0.3,
      () =>
        agentPlan("DELETE terminals/valueOf unframed body (client framing error)", {
          method: "DELETE",
          path: `${W}/terminals/valueOf`,
          headers: jsonHeaders,
          chunks: ['{"a":', "1}"],
          unframed: true,
        }),
    ],
    [1, () => agentPlan("HEAD terminals", { method: "HEAD", path: `${W}/terminals`, headers: auth })],
    [
      1,
      () =>
        agentPlan("PUT files chunked", {
          method: "PUT",
          path: `${W}/files`,
          headers: jsonHeaders,
          chunks: [
            '{"path":"/workspace/c",',
            `"content_b64":"${randomBytes(30000).toString("base64")}`,
            '"}',
          ],
        }),
    ],
    [
      1,
      () =>
        agentPlan("PUT files chunked content_b64 object", {
          method: "PUT",
          path: `${W}/files?cursor=garbage`,
          headers: jsonHeaders,
          chunks: ['{"path":"/workspace/c","content_b64":', "{", '"a":1}}'],
        }),
    ],
    [
      1,
      () =>
        agentPlan("POST exec 2 MB chunked", {
          method: "POST",
          path: `${W}/exec`,
          headers: jsonHeaders,
          chunks: [Buffer.alloc(1 << 20, 0x20), Buffer.alloc(1 << 20, 0x20), "{}"],
        }),
    ],
    [
      0.3,
      () =>
        withBody(
          "PUT files 4 MiB",
          "PUT",
          `${W}/files`,
          json({ path: "/workspace/big4", content_b64: randomBytes(4 << 20).toString("base64") }),
        ),
    ],
    [0.5, () => get("GET files 1 MiB", `${W}/files?path=/workspace/big`)],
    [
      1,
      () => withBody("POST terminals", "POST", `${W}/terminals`, json({ cols: 80, rows: 24 }), jsonHeaders),
    ],
    [2, () => withBody("POST access-tickets", "POST", `${W}/access-tickets`, json({ ttl_sec: 30 }))],
    [
      2,
      () =>
        withBody(
          "POST access-tickets {ttl_sec:undefined}",
          "POST",
          `${W}/access-tickets`,
          '{"ttl_sec":undefined}',
        ),
    ],
    [2, () => get("GET desktop", `${W}/desktop`)],
    [2, () => get("GET sandbox", W)],
    [2, () => get("GET sandbox state", `${W}/state`)],
    // Fork, then delete the child (rare: a fork starts a sandbox).
    [
      0.3,
      () =>
        run.forks.size >= 2
          ? get("GET sandbox events", `${W}/events`)
          : withBody("POST fork", "POST", `${W}/fork`, "", auth),
    ],
    // Log-follow streams the client cuts after 1.5 s.
    [
      2,
      () =>
        agentPlan("GET logs?follow=true (cut 1.5 s)", {
          method: "GET",
          path: `/v3/orgs/demo/workloads/${fx.workload}/logs?follow=true`,
          headers: auth,
          cutAfterMs: 1500,
        }),
    ],
    [
      1,
      () =>
        agentPlan("GET sandbox logs?follow=true (cut 1.5 s)", {
          method: "GET",
          path: `${W}/logs?follow=true`,
          headers: auth,
          cutAfterMs: 1500,
        }),
    ],
    [
      1,
      () =>
        agentPlan("GET logs?follow=true (response cut 1.5 s)", {
          method: "GET",
          path: `/v3/orgs/demo/workloads/${fx.workload}/logs?follow=true`,
          headers: auth,
          cutAfterMs: 1500,
          cutResponse: true,
        }),
    ],
    // WebSocket upgrades: admitted (a fresh ticket), refused (bad ticket, bad version, REST route).
    [
      2,
      async () => {
        const ticket = await mintTicket(run);
        return {
          label: "UPGRADE terminal ws (ticket)",
          via: "upgrade",
          send: {
            method: "GET",
            path: `${W}/terminals/${fx.terminal}/ws?ticket=${ticket}`,
            headers: upgradeHeaders(),
          },
        };
      },
    ],
    [
      2,
      () => ({
        label: "UPGRADE terminal ws bad ticket",
        via: "upgrade",
        send: {
          method: "GET",
          path: `${W}/terminals/${fx.terminal}/ws?ticket=nope`,
          headers: upgradeHeaders(),
        },
      }),
    ],
    [
      1,
      () => ({
        label: "UPGRADE terminal ws valueOf",
        via: "upgrade",
        send: { method: "GET", path: `${W}/terminals/valueOf/ws`, headers: upgradeHeaders(auth) },
      }),
    ],
    [
      1,
      () => ({
        label: "UPGRADE desktop ws headless",
        via: "upgrade",
        send: { method: "GET", path: `${W}/desktop/ws`, headers: upgradeHeaders(auth) },
      }),
    ],
    [
      1,
      () => ({
        label: "UPGRADE terminal ws version 8",
        via: "upgrade",
        send: {
          method: "GET",
          path: `${W}/terminals/${fx.terminal}/ws`,
          headers: upgradeHeaders({ ...auth, "sec-websocket-version": "8" }),
        },
      }),
    ],
    [
      1,
      () => ({
        label: "UPGRADE on REST route",
        via: "upgrade",
        send: { method: "GET", path: `/v3/orgs/demo/workloads`, headers: upgradeHeaders(auth) },
      }),
    ],
    [
      1,
      () => ({
        label: "UPGRADE h2c on REST route",
        via: "upgrade",
        send: {
          method: "GET",
          path: `/v3/orgs/demo/ssh-keys`,
          headers: { ...auth, connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "" },
        },
      }),
    ],
    // Other resources, with hostile bodies.
    [
      2,
      () =>
        withBody(
          "POST workloads 100 KB JSON string",
          "POST",
          "/v3/orgs/demo/workloads",
          json("x".repeat(100_000)),
        ),
    ],
    [2, () => withBody("POST workloads invalid JSON", "POST", "/v3/orgs/demo/workloads", "{nope")],
    [
      1,
      () =>
        withBody("POST workloads 2 MB body", "POST", "/v3/orgs/demo/workloads", Buffer.alloc(2 << 20, 0x20)),
    ],
    [
      1,
      () =>
        withBody("POST workloads text/plain", "POST", "/v3/orgs/demo/workloads", "{}", {
          ...auth,
          "content-type": "text/plain",
        }),
    ],
    [
      2,
      () =>
        agentPlan("POST workloads chunked", {
          method: "POST",
          path: "/v3/orgs/demo/workloads",
          headers: jsonHeaders,
          chunks: ['{"type":"RENTAL",', '"name":"x"', "}"],
        }),
    ],
    [
      1,
      () =>
        agentPlan("POST exec chunked", {
          method: "POST",
          path: `${W}/exec`,
          headers: jsonHeaders,
          chunks: ['{"cmd":', '"echo chunked"}'],
        }),
    ],
    [
      2,
      () =>
        withBody(
          "PUT ssh-keys/{key} 5000 bytes invalid JSON",
          "PUT",
          `/v3/orgs/demo/workloads/${fx.sandbox}/ssh-keys/${fx.key}`,
          "{".repeat(5000),
        ),
    ],
    [2, () => get("GET volumes/{uid}/events", `/v3/orgs/demo/volumes/${fx.volume}/events`)],
    [2, () => get("GET workloads", "/v3/orgs/demo/workloads?limit=5")],
    [1, () => get("GET workloads?cursor=garbage", "/v3/orgs/demo/workloads?cursor=garbage")],
    [1, () => agentPlan("GET workloads no token", { method: "GET", path: "/v3/orgs/demo/workloads" })],
    [1, () => get("GET /v3/orgs/demo/workloads/%2e%2e", "/v3/orgs/demo/workloads/%2e%2e")],
    [1, () => get("GET /v3/orgs/demo/workloads/__proto__", "/v3/orgs/demo/workloads/__proto__")],
    [1, () => get("GET /healthz", "/healthz")],
    [1, () => withBody("GET with a body", "GET", "/v3/orgs/demo/ssh-keys", json({ a: 1 }))],
    [
      1,
      () =>
        withBody("POST volumes Expect: 100-continue", "POST", "/v3/orgs/demo/volumes", json({ name: "v" }), {
          ...jsonHeaders,
          expect: "100-continue",
        }),
    ],
    // Raw sockets: framing the agent would not send.
    [
      1,
      () => ({
        label: "RAW Content-Length larger than the body",
        via: "raw",
        bytes: [
          `POST /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
        ],
      }),
    ],
    [
      1,
      () => ({
        label: "RAW PUT files Content-Length larger than the body",
        via: "raw",
        bytes: [
          `PUT ${W}/files HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"path":"/workspace/r","content_b64":"QUJD`,
        ],
      }),
    ],
    [
      1,
      () => ({
        label: "RAW headers never finished",
        via: "raw",
        bytes: [`GET /v3/orgs/demo/workloads HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO}\r\n`],
      }),
    ],
    [
      1,
      () => ({
        label: "RAW chunked body never finished",
        via: "raw",
        bytes: [
          `POST /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\n`,
        ],
      }),
    ],
    [
      1,
      () => ({
        label: "RAW garbage request line",
        via: "raw",
        bytes: ["HELLO / WORLD\r\n\r\n"],
      }),
    ],
  ];
  if (admin) {
    list.push(
      [
        2,
        () =>
          agentPlan("ADMIN GET orgs", {
            method: "GET",
            path: "/admin/orgs",
            headers: { authorization: ADMIN },
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN GET resources", {
            method: "GET",
            path: "/admin/orgs/demo/resources",
            headers: { authorization: ADMIN },
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN GET faults", {
            method: "GET",
            path: "/admin/faults",
            headers: { authorization: ADMIN },
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN GET rate-limit", {
            method: "GET",
            path: "/admin/orgs/demo/rate-limit",
            headers: { authorization: ADMIN },
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN POST faults (matches nothing)", {
            method: "POST",
            path: "/admin/faults",
            headers: { authorization: ADMIN, "content-type": "application/json" },
            body: json({ path: "^/matches-nothing$", count: 1, status: 500 }),
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN bad token", {
            method: "GET",
            path: "/admin/orgs",
            headers: { authorization: DEMO },
          }),
      ],
      [
        1,
        () =>
          agentPlan("ADMIN POST credits invalid JSON", {
            method: "POST",
            path: "/admin/orgs/demo/credits",
            headers: { authorization: ADMIN, "content-type": "application/json" },
            body: "{",
          }),
      ],
    );
  }
  return list;
}

/** A fresh access ticket for the sandbox (a request of its own, not counted in the traffic). */
async function mintTicket(run: Run): Promise<string> {
  const r = await once(run, {
    label: "(ticket)",
    via: "agent",
    send: {
      method: "POST",
      path: `/v3/orgs/demo/workloads/${run.fx.sandbox}/access-tickets`,
      headers: { authorization: DEMO },
    },
  });
  try {
    return (JSON.parse(r.text ?? "") as { ticket: string }).ticket;
  } catch {
    return "unminted";
  }
}

interface Done extends Outcome {
  text?: string;
}

/** Sends one plan; resolves with its outcome (never rejects). */
function once(run: Run, plan: Plan): Promise<Done> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (o: Omit<Done, "label" | "ms">, cleanup?: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const out: Done = { label: plan.label, ms: performance.now() - t0, ...o };
      if (o.kind !== "answered") run.onLost?.(out);
      resolve(out);
      cleanup?.();
    };

    if (plan.via === "raw") {
      const url = new URL(run.fx.origin);
      const sock = net.connect(Number(url.port), url.hostname);
      let got = "";
      sock.on("data", (d: Buffer) => {
        got += d.toString("latin1");
        const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
        if (m) settle({ kind: "answered", status: Number(m[1]) }, () => sock.destroy());
      });
      sock.on("error", (e) =>
        settle({ kind: "closed", error: (e as NodeJS.ErrnoException).code ?? e.message }),
      );
      sock.on("close", () => settle({ kind: "closed", error: "closed without an answer" }));
      sock.on("connect", () => {
        for (const b of plan.bytes) sock.write(b);
      });
      timer = setTimeout(
        () => settle({ kind: "lost", port: sock.localPort }, () => sock.destroy()),
        run.lostAfterMs,
      );
      return;
    }

    const { send } = plan;
    const upgrade = plan.via === "upgrade";
    const headers: Record<string, string | number> = { ...send.headers };
    if (send.body !== undefined) headers["content-length"] = Buffer.byteLength(send.body);
    // node:http frames a body written in pieces as chunked for POST, PUT and PATCH only; for
    // DELETE it sends the bytes unframed unless told (see `unframed`).
    if (send.chunks && !send.unframed) headers["transfer-encoding"] = "chunked";
    const url = new URL(send.path, run.fx.origin);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method: send.method,
      path: send.path,
      headers,
      // Upgrades go on the shared agent too, half of them (as one agent for everything sends
      // them), the other half on a connection of their own.
      agent: upgrade && run.rand() < 0.5 ? false : run.agent,
    });
    let reused = false;
    let port: number | undefined;
    req.on("socket", (s) => {
      const note = () => (port = s.localPort);
      if (s.localPort) note();
      else s.once("connect", note);
      reused = (s as net.Socket & { _cwsUsed?: boolean })._cwsUsed === true;
      (s as net.Socket & { _cwsUsed?: boolean })._cwsUsed = true;
    });
    timer = setTimeout(() => settle({ kind: "lost", reused, port }, () => req.destroy()), run.lostAfterMs);
    req.on("error", (e) =>
      settle({ kind: "closed", error: (e as NodeJS.ErrnoException).code ?? e.message, reused, port }),
    );
    req.on("upgrade", (res, socket) => {
      settle({ kind: "answered", status: res.statusCode, reused }, () => {
        // A close frame (masked, code 1000), then the socket goes.
        socket.on("error", () => {});
        socket.end(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]));
        setTimeout(() => socket.destroy(), 200).unref();
      });
    });
    req.on("response", (res) => {
      if (send.cutAfterMs !== undefined) {
        settle({ kind: "answered", status: res.statusCode, reused });
        res.on("data", () => {});
        res.on("error", () => {});
        setTimeout(() => (send.cutResponse ? res.destroy() : req.destroy()), send.cutAfterMs).unref();
        return;
      }
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("error", () => {});
      res.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        settle({ kind: "answered", status: res.statusCode, text, reused });
        if (plan.via === "agent") void plan.then?.(res, text);
      });
      res.on("aborted", () => settle({ kind: "closed", error: "answer cut short", reused }));
    });
    if (send.chunks) {
      void (async () => {
        for (const c of send.chunks!) {
          if (req.destroyed) return;
          req.write(c);
          await new Promise((r) => setTimeout(r, 5));
        }
        req.end();
      })();
    } else req.end(send.body);
  });
}

/** Makes what the traffic acts on: a running sandbox with a terminal, a running RENTAL workload, a key, a volume. */
export async function prepareTraffic(origin: string): Promise<TrafficFixtures> {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${origin}/v3${path}`, {
      method,
      headers: { authorization: DEMO, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const waitRunning = async (uid: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const st = await call("GET", `/orgs/demo/workloads/${uid}/state`);
      if (st.status === "running") return;
      if (st.status === "error" || Date.now() > deadline)
        throw new Error(`${uid}: ${String(st.status)} ${String(st.message)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const sb = await call("POST", "/orgs/demo/workloads", {
    type: "SANDBOX",
    name: "hostile",
    image: "tpl-ubuntu-headless",
  });
  const sandbox = String(sb.uid);
  await call("POST", `/orgs/demo/workloads/${sandbox}/deploy`);
  const wl = await call("POST", "/orgs/demo/workloads", {
    type: "RENTAL",
    name: "hostile-web",
    image: "nginx:1.27",
    resource_name: "cpu-rental-small",
  });
  const workload = String(wl.uid);
  await call("POST", `/orgs/demo/workloads/${workload}/deploy`);
  const key = await call("POST", "/orgs/demo/ssh-keys", {
    name: "hostile",
    ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx test@cws",
  });
  const volume = await call("POST", "/orgs/demo/volumes", {
    name: "hostile",
    size_in_mb: 1024,
    resource_name: "gpu-rental-small",
  });
  await waitRunning(sandbox);
  await waitRunning(workload);
  const term = await call("POST", `/orgs/demo/workloads/${sandbox}/terminals`, {});
  return {
    origin,
    sandbox,
    terminal: String(term.id),
    workload,
    key: String(key.uid),
    volume: String(volume.uid),
  };
}

/** Runs the traffic; resolves with what happened to every request. */
export async function runTraffic(fx: TrafficFixtures, opts: TrafficOptions): Promise<TrafficReport> {
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.sockets ?? 16 });
  const run: Run = {
    fx,
    agent,
    lostAfterMs: opts.lostAfterMs ?? 30_000,
    onLost: opts.onLost,
    forks: new Set(),
    rand: prng(seed),
  };
  const plans = catalogue(run, opts.admin ?? true);
  const totalWeight = plans.reduce((s, [w]) => s + w, 0);
  const pick = (): (() => Plan | Promise<Plan>) => {
    let x = run.rand() * totalWeight;
    for (const [w, p] of plans) {
      x -= w;
      if (x < 0) return p;
    }
    return plans[plans.length - 1]![1];
  };

  const report: TrafficReport = {
    total: 0,
    answered: 0,
    closed: 0,
    lost: [],
    slowest: [],
    slowestSent: [],
    statuses: {},
    serverErrors: [],
    closes: {},
    seed,
    elapsedMs: 0,
  };
  const t0 = performance.now();
  let next = 0;
  const every = opts.progressEvery ?? 1000;
  const note = (o: Done): void => {
    report.total++;
    const { text: _text, ...outcome } = o;
    if (o.kind === "lost") report.lost.push(outcome);
    else {
      if (o.kind === "answered") {
        report.answered++;
        report.statuses[String(o.status)] = (report.statuses[String(o.status)] ?? 0) + 1;
        if ((o.status ?? 0) >= 500) report.serverErrors.push(outcome);
      } else {
        report.closed++;
        const key = `${o.label}: ${o.error ?? "?"}`;
        report.closes[key] = (report.closes[key] ?? 0) + 1;
      }
      keepSlowest(report.slowest, outcome);
      if (!o.label.startsWith("RAW ")) keepSlowest(report.slowestSent, outcome);
    }
    if (opts.onProgress && report.total % every === 0) opts.onProgress(report.total, report);
  };

  const cleanupFork = async (o: Done): Promise<void> => {
    if (!o.label.startsWith("POST fork") || o.status !== 201 || !o.text) return;
    const uid = (JSON.parse(o.text) as { uid: string }).uid;
    run.forks.add(uid);
    const del = await once(run, {
      label: "(delete fork)",
      via: "agent",
      send: { method: "DELETE", path: `/v3/orgs/demo/workloads/${uid}`, headers: { authorization: DEMO } },
    });
    if (del.kind === "answered") run.forks.delete(uid);
  };

  const client = async (): Promise<void> => {
    while (next < opts.requests) {
      next++;
      let plan = await pick()();
      while (opts.exclude?.test(plan.label)) plan = await pick()();
      if (plan.via === "raw") {
        // A request the client never finishes waits for the server's timeout: it goes on
        // meanwhile, on a connection of its own, while this client sends the next one.
        const p = once(run, plan).then(note);
        stalled.add(p);
        void p.finally(() => stalled.delete(p));
        continue;
      }
      const o = await once(run, plan);
      note(o);
      await cleanupFork(o);
    }
  };
  const stalled = new Set<Promise<void>>();
  try {
    await Promise.all(Array.from({ length: opts.clients ?? 8 }, () => client()));
    while (stalled.size) await Promise.all([...stalled]);
  } finally {
    agent.destroy();
  }
  report.elapsedMs = performance.now() - t0;
  return report;
}
