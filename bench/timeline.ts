/**
 * Where a rate-limited phase of bench/scale.ts spends its time, from the request timeline the
 * bench's server keeps when BENCH_SERVER_TIMELINE names a file (provider-server.ts: one line per
 * answered API request, `<start ms> <end ms> <status> <route>`; scale.ts adds `# <ms> begin|end
 * <front end> <limit> <N> <phase>` around each phase). For each phase of the runs whose label
 * starts with the filter: the wall time, the requests and the floor `requests / rate`; when the
 * first request reached the service and the last answer left it; the time the service's token
 * bucket sat full (replayed from the requests, the org's bucket starting full when the limit is
 * set: each second of it is `rate` requests no client can make up); the pauses of over 150 ms
 * without a request; and requests a second in bins of 0.5 s.
 *
 * Run: BENCH_SERVER_TIMELINE=/tmp/t.txt node bench/scale.ts --front-ends opentofu --limits 50:50
 * --n 500, then node bench/timeline.ts /tmp/t.txt ["opentofu 50:50"].
 */
import { readFileSync } from "node:fs";

const [file, filter = ""] = process.argv.slice(2);
if (!file) throw new Error("usage: node bench/timeline.ts <timeline file> [run filter]");

interface Request {
  start: number;
  route: string;
  status: string;
}
interface Mark {
  at: number;
  what: string;
}

const requests: Request[] = [];
const begins: Mark[] = [];
const ends: Mark[] = [];
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (!line) continue;
  if (line.startsWith("# ")) {
    const [at, kind, ...what] = line.slice(2).split(" ");
    (kind === "begin" ? begins : ends).push({ at: Number(at), what: what.join(" ") });
    continue;
  }
  const [start, , status, method, route] = line.split(" ");
  requests.push({ start: Number(start), route: `${method} ${route}`, status: status! });
}
requests.sort((a, b) => a.start - b.start);

/** The org's limit from a run's label (`opentofu 50:50 500 up`), if it has one. */
function limitOf(what: string): { rps: number; burst: number } | undefined {
  const m = / (\d+(?:\.\d+)?):(\d+) /.exec(` ${what} `);
  return m ? { rps: Number(m[1]), burst: Number(m[2]) } : undefined;
}

/** The run a phase's label belongs to: the label less its last word, the phase. */
const runOf = (what: string) => what.slice(0, what.lastIndexOf(" "));

const secs = (ms: number) => (ms / 1000).toFixed(2);

for (const begin of begins.filter((b) => b.what.startsWith(filter))) {
  const end = ends.find((e) => e.what === begin.what && e.at >= begin.at);
  const limit = limitOf(begin.what);
  if (!end || !limit) continue;
  const perMs = limit.rps / 1000;
  const inPhase = requests.filter((r) => r.start >= begin.at && r.start <= end.at);
  const wall = end.at - begin.at;
  console.log(
    `\n${begin.what}: ${secs(wall)} s, ${inPhase.length} requests, floor ${secs(inPhase.length / perMs)} s`,
  );
  // The service's bucket, replayed from the first request of the run (it starts full).
  const runStart = begins.find((b) => runOf(b.what) === runOf(begin.what))!.at;
  let tokens = limit.burst;
  let at = runStart;
  let full = 0;
  const fullSpans: string[] = [];
  const advance = (to: number) => {
    const fillsAt = at + (limit.burst - tokens) / perMs;
    if (to > fillsAt && to > begin.at) {
      const from = Math.max(fillsAt, begin.at);
      full += to - from;
      if (to - from >= 50) fullSpans.push(`${secs(from - begin.at)}-${secs(to - begin.at)}`);
    }
    tokens = Math.min(limit.burst, tokens + (to - at) * perMs);
    at = to;
  };
  for (const r of requests) {
    if (r.start < runStart) continue;
    if (r.start > end.at) break;
    advance(r.start);
    if (r.status !== "429") tokens = Math.max(0, tokens - 1);
  }
  advance(end.at);
  console.log(`bucket full ${secs(full)} s (${fullSpans.join(", ")})`);
  if (inPhase.length)
    console.log(
      `first request at ${secs(inPhase[0]!.start - begin.at)} s; last sent at ${secs(inPhase.at(-1)!.start - begin.at)} s`,
    );
  const gaps: string[] = [];
  let prev = begin.at;
  for (const r of [...inPhase, { start: end.at }]) {
    if (r.start - prev > 150) gaps.push(`${secs(prev - begin.at)}-${secs(r.start - begin.at)}`);
    prev = Math.max(prev, r.start);
  }
  console.log(`no request for 150 ms or more: ${gaps.join(", ") || "none"}`);
  const bin = 500;
  const counts = new Array<number>(Math.ceil(wall / bin)).fill(0);
  for (const r of inPhase) counts[Math.min(counts.length - 1, Math.floor((r.start - begin.at) / bin))]! += 1;
  counts.forEach((c, i) =>
    console.log(`${secs(i * bin).padStart(6)} s ${String((c * 1000) / bin).padStart(4)}/s ${"#".repeat(c)}`),
  );
}
