/**
 * The long run of hostile traffic (test/server/hostile-traffic.ts): N requests (default 100,000)
 * from 8 concurrent clients on one keep-alive agent of 16 sockets against `cws serve` in a child
 * process with a running sandbox, log-follow streams cut after 1.5 s, WebSocket upgrades, admin
 * calls and hostile bodies and paths. Prints every lost request, the closes, the statuses and the
 * slowest answers; exits 1 if a request was lost or answered over the bound.
 *
 *   node bench/hostile-traffic.ts [REQUESTS] [--no-admin] [--seed N] [--bound-ms MS] [--in-process]
 *     [--exclude REGEX (labels left out)] [--lost-after-ms MS] [--timeouts-ms MS (in-process)]
 *     [--progress N]
 *
 * --in-process runs the server in this process and prints, for each request lost or closed, the
 * server's side of its connection (socket state, the last requests it carried): how the stalled
 * keep-alive connections behind refused uploads were found. The bound is the server's answer
 * bound (server/http/timeouts.ts).
 */
import * as fs from "node:fs";
import { bubblewrapStatus } from "../server/sandbox/runtime/index.ts";
import { startTestServer } from "../test/helpers/server.ts";
import {
  prepareTraffic,
  runTraffic,
  type Outcome,
  type TrafficReport,
} from "../test/server/hostile-traffic.ts";
import { ANSWER_BOUND_MS, answerBoundMs, resolveTimeouts } from "../server/http/timeouts.ts";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const requests = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const admin = !args.includes("--no-admin");
const seed = flag("--seed") === undefined ? undefined : Number(flag("--seed"));
const inProcess = args.includes("--in-process");
// --timeouts-ms N: the headers, body and sandbox-wait timeouts of an in-process server.
const short = flag("--timeouts-ms") === undefined ? undefined : Number(flag("--timeouts-ms"));
const timeouts =
  short === undefined ? undefined : { headersMs: short, bodyIdleMs: short, sandboxWaitMs: short };
const boundMs = Number(
  flag("--bound-ms") ?? (timeouts ? answerBoundMs(resolveTimeouts(timeouts)) : ANSWER_BOUND_MS),
);
const exclude = flag("--exclude") === undefined ? undefined : new RegExp(flag("--exclude")!);
const lostAfterMs = Number(flag("--lost-after-ms") ?? 30_000);

const status = bubblewrapStatus();
if (!status.available) {
  console.error(`hostile traffic bench skipped: sandboxes cannot run here (${status.reason})`);
  process.exit(1);
}

const server = inProcess
  ? await startTestServer({ sandboxRoot: true, timeouts })
  : await startTestServer({ subprocess: true });
const summary = (r: TrafficReport): string =>
  `${r.total} requests: ${r.answered} answered, ${r.closed} closed, ${r.lost.length} lost; slowest ` +
  `${r.slowest[0]?.ms.toFixed(0) ?? "-"} ms (${r.slowest[0]?.label ?? "-"}), of those sent in full ` +
  `${r.slowestSent[0]?.ms.toFixed(0) ?? "-"} ms (${r.slowestSent[0]?.label ?? "-"})`;
/** In-process only: the server's view of every connection and request, dumped when a request is lost. */
interface Seen {
  method: string;
  url: string;
  t0: number;
  req: import("node:http").IncomingMessage;
  res: import("node:http").ServerResponse;
}
const conns = new Map<
  number,
  {
    socket: import("node:net").Socket;
    requests: Seen[];
    upgraded?: string;
    destroyedBy?: string;
    /** The parse error the server met on the connection (a client's framing), if any. */
    clientError?: string;
  }
>();
if (inProcess && "http" in server) {
  server.http.prependListener("connection", (socket: import("node:net").Socket) => {
    const port = socket.remotePort!;
    conns.set(port, { socket, requests: [] });
    if (process.env.CWS_TRACE_DESTROY) {
      const destroy = socket.destroy.bind(socket);
      socket.destroy = (e?: Error) => {
        const c = conns.get(port);
        if (c) c.destroyedBy = new Error("destroyed here").stack;
        return destroy(e);
      };
    }
    socket.once("close", () => setTimeout(() => conns.delete(port), 60_000).unref());
  });
  server.http.prependListener("request", (req, res) => {
    conns
      .get(req.socket.remotePort!)
      ?.requests.push({ method: req.method!, url: req.url!, t0: Date.now(), req, res });
  });
  server.http.prependListener(
    "clientError",
    (e: Error & { code?: string }, socket: import("node:net").Socket) => {
      const c = conns.get(socket.remotePort!);
      if (c) c.clientError = e.code ?? e.message;
    },
  );
  server.http.prependListener("upgrade", (req) => {
    const c = conns.get(req.socket.remotePort!);
    if (c) c.upgraded = `${req.method} ${req.url}`;
  });
}
let closedAfterClientError = 0;
const dump = (o: Outcome): void => {
  const c = o.port === undefined ? undefined : conns.get(o.port);
  if (!c) {
    console.error(`  ${o.kind} ${o.label} on port ${o.port}: the server has no connection from that port`);
    return;
  }
  const s = c.socket as import("node:net").Socket & {
    _paused?: boolean;
    parser?: unknown;
    _httpMessage?: unknown;
  };
  console.error(
    `  ${o.kind} ${o.label} (${o.error ?? ""}) on port ${o.port}: socket bytesRead ${s.bytesRead} written ${s.bytesWritten} destroyed ${s.destroyed} ` +
      `_paused ${s._paused} isPaused ${s.isPaused()} flowing ${s.readableFlowing} parser ${s.parser ? "yes" : "no"} ` +
      `_httpMessage ${s._httpMessage ? "yes" : "no"} upgraded ${c.upgraded ?? "no"}`,
  );
  if (c.clientError) {
    closedAfterClientError++;
    console.error(`    the server refused bytes on it as a malformed request: ${c.clientError}`);
  }
  if (c.destroyedBy) console.error(`    ${c.destroyedBy.split("\n").slice(1, 12).join("\n    ")}`);
  for (const r of c.requests.slice(-4))
    console.error(
      `    ${r.method} ${r.url.slice(0, 120)} +${Date.now() - r.t0} ms ago: complete ${r.req.complete} readableEnded ${r.req.readableEnded} ` +
        `consuming ${(r.req as unknown as { _consuming: boolean })._consuming} dumped ${(r.req as unknown as { _dumped: boolean })._dumped} ` +
        `headersSent ${r.res.headersSent} writableEnded ${r.res.writableEnded} finished ${r.res.writableFinished} status ${r.res.statusCode}`,
    );
};
let code = 0;
try {
  const fx = await prepareTraffic(server.origin);
  const started = Date.now();
  let shown = 0;
  const fds = (): number => (inProcess ? fs.readdirSync("/proc/self/fd").length : NaN);
  const fdsBefore = fds();
  const report = await runTraffic(fx, {
    requests,
    admin,
    seed,
    exclude,
    lostAfterMs,
    onLost: inProcess ? dump : undefined,
    progressEvery: Number(flag("--progress") ?? 5000),
    onProgress: (_n, r) => {
      console.error(`${((Date.now() - started) / 1000).toFixed(0)} s: ${summary(r)}`);
      for (const o of r.lost.slice(shown))
        console.error(`  lost: ${o.label}${o.reused ? " (reused socket)" : ""}`);
      shown = r.lost.length;
    },
  });
  const over = report.slowest.filter((o) => o.ms > boundMs);
  console.log(
    JSON.stringify(
      {
        requests,
        admin,
        seed: report.seed,
        elapsed_s: Math.round(report.elapsedMs / 100) / 10,
        answered: report.answered,
        closed: report.closed,
        lost: report.lost,
        over_bound_ms: boundMs,
        over_bound: over,
        slowest: report.slowest.map((o) => ({ ...o, ms: Math.round(o.ms) })),
        slowest_sent_in_full: report.slowestSent.map((o) => ({ ...o, ms: Math.round(o.ms) })),
        statuses: report.statuses,
        closes: report.closes,
        server_errors: report.serverErrors.slice(0, 20),
      },
      null,
      2,
    ),
  );
  console.log(summary(report));
  if (inProcess) {
    console.log(`open descriptors of the process: ${fdsBefore} before, ${fds()} after`);
    console.log(
      `closed: ${report.closed}, of which on a connection where the server had refused bytes as a malformed request: ${closedAfterClientError}`,
    );
  }
  if (report.lost.length || over.length) code = 1;
} finally {
  await server.close();
}
process.exit(code);
