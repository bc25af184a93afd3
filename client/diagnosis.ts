/**
 * Gathering what a failed wait shows the user (diagnosis-text.ts): the workload's state, the last
 * events of its current deployment and the last lines of its log (the previous container's when the
 * current one restarted and has printed nothing). Bounded: every request of it runs under one
 * budget of about 2 s (its own retry budget and an abort at the end of it), whatever the wait's
 * deadline was; what cannot be read in it becomes one line saying why. Every text the service gave
 * is redacted before it is kept.
 */
import type { Page, WorkloadEvent, WorkloadState } from "../api/index.ts";
import {
  DIAGNOSIS_BUDGET_MS,
  DIAGNOSIS_EVENTS,
  DIAGNOSIS_LOG_LINES,
  printable,
  redact,
  type DiagnosisEvent,
  type WaitDiagnosis,
} from "./diagnosis-text.ts";
import { CwsApiError, CwsConnectionError } from "./errors.ts";
import type { RequestOptions } from "./http.ts";
import { withRetryBudget } from "./retry.ts";

/** The reads a diagnosis makes (client.workloads). */
export interface DiagnosisSource {
  state(uid: string, opts?: RequestOptions): Promise<WorkloadState>;
  events(
    uid: string,
    query: { limit?: number; cursor?: string },
    opts?: RequestOptions,
  ): Promise<Page<WorkloadEvent>>;
  logs(uid: string, query: { tail?: number; previous?: boolean }, opts?: RequestOptions): Promise<string>;
  /** The base URL and org, for the "more" line's API calls. */
  readonly where: { baseUrl: string; org: string };
  /** Redacts what the client itself holds secret (its token). */
  scrub(text: string): string;
}

export interface DiagnoseOptions {
  /** Values to redact beyond the client's token: passwords, env values marked secret. */
  secrets?: Iterable<string>;
  /** The state the wait saw last (saves a read). */
  state?: WorkloadState;
  signal?: AbortSignal;
  budgetMs?: number;
}

/** Pages of events read at most (each of up to the service's default page size). */
const MAX_EVENT_PAGES = 5;

/**
 * Every event of the workload, oldest first (at most MAX_EVENT_PAGES pages); `from` is a cursor
 * to start at and `onCursor` gets each next_cursor handed out, so a later read can start there.
 */
export async function readEvents(
  src: Pick<DiagnosisSource, "events">,
  uid: string,
  opts: RequestOptions,
  from?: string,
  onCursor?: (cursor: string) => void,
): Promise<WorkloadEvent[]> {
  const all: WorkloadEvent[] = [];
  let cursor = from;
  for (let i = 0; i < MAX_EVENT_PAGES; i++) {
    const page = await src.events(uid, cursor ? { cursor } : {}, opts);
    all.push(...page.items);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
    onCursor?.(cursor);
  }
  return all;
}

/** The events of the deployment of the newest one (same pod), or all when events name no pod. */
export function thisDeployment(events: WorkloadEvent[]): WorkloadEvent[] {
  const pod = events.findLast((e) => e.pod_name)?.pod_name;
  return pod ? events.filter((e) => e.pod_name === pod) : events;
}

/** Why a read failed, in a few words (status and reason, or the connection's failure). */
function why(e: unknown): string {
  if (e instanceof CwsApiError) return `${e.status} ${e.reason}`;
  if (e instanceof CwsConnectionError) return e.code ?? e.message;
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"))
    return "no answer within the diagnosis's time";
  return e instanceof Error ? e.message : String(e);
}

/** The diagnosis of workload `uid`; never throws (what fails is said in `unavailable`). */
export async function diagnose(
  src: DiagnosisSource,
  uid: string,
  o: DiagnoseOptions = {},
): Promise<WaitDiagnosis> {
  const budget = o.budgetMs ?? DIAGNOSIS_BUDGET_MS;
  const secrets = [...(o.secrets ?? [])];
  const clean = (t: string) => printable(src.scrub(redact(t, secrets)));
  const timeout = AbortSignal.timeout(budget);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const req: RequestOptions = { signal, timeoutMs: budget };
  const base = `${src.where.baseUrl}/orgs/${src.where.org}/workloads/${uid}`;
  const d: WaitDiagnosis = {
    uid,
    events: [],
    logs: [],
    logsOf: "current",
    more: [
      `cws logs ${uid} --tail 200`,
      `cws events ${uid}`,
      `GET ${base}/logs?tail=200`,
      `GET ${base}/events`,
    ],
  };
  const failed: string[] = [];
  const note = (what: string) => (e: unknown) => {
    if (o.signal?.aborted) throw e;
    failed.push(`${what}: ${why(e)}`);
    return undefined;
  };
  const lastLines = (text: string) =>
    text
      .split("\n")
      .filter((l) => l !== "")
      .slice(-DIAGNOSIS_LOG_LINES)
      .map(clean);

  await withRetryBudget({ deadline: Date.now() + budget, signal }, async () => {
    const [state, events, logs] = await Promise.all([
      o.state ? Promise.resolve(o.state) : src.state(uid, req).catch(note("state")),
      readEvents(src, uid, req).catch(note("events")),
      src.logs(uid, { tail: DIAGNOSIS_LOG_LINES }, req).catch(note("logs")),
    ]);
    if (state) {
      d.status = state.status;
      d.message = clean(state.message);
      d.readyReplicas = state.ready_replicas;
      d.totalReplicas = state.total_replicas;
      if (state.workload_type === "VM") d.logsOf = "serial";
    }
    const mine = events ? thisDeployment(events) : [];
    d.events = mine.slice(-DIAGNOSIS_EVENTS).map((e): DiagnosisEvent => ({
      at: e.created_at,
      reason: clean(e.reason ?? e.event_type),
      message: clean(e.display_message ?? e.message ?? ""),
      ...(e.exit_code !== null && e.exit_code !== undefined ? { exitCode: e.exit_code } : {}),
    }));
    d.logs = logs === undefined ? [] : lastLines(logs);
    // A container of this deployment exited and the current one printed nothing: it restarted.
    if (
      logs !== undefined &&
      !d.logs.length &&
      mine.some((e) => e.exit_code !== null && e.exit_code !== undefined)
    ) {
      const previous = await src
        .logs(uid, { tail: DIAGNOSIS_LOG_LINES, previous: true }, req)
        .catch(note("previous logs"));
      if (previous) {
        d.logs = lastLines(previous);
        d.logsOf = "previous";
        d.more[0] = `cws logs ${uid} --tail 200 --previous`;
        d.more[2] = `GET ${base}/logs?tail=200&previous=true`;
      }
    }
  });
  const order = ["state", "events", "logs", "previous logs"];
  failed.sort((a, b) => order.indexOf(a.split(":")[0]!) - order.indexOf(b.split(":")[0]!));
  if (failed.length) d.unavailable = `the diagnosis could not be read in full (${failed.join("; ")})`;
  return d;
}
