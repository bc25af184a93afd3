/**
 * A workload wait's progress: with each poll of the state, the newest event (its reason and
 * message) and the replicas, said when any of them changed. Cost: one events request beside each
 * poll of the state, sent together so the wait is not slower (a poll of a workload still on its
 * way waits at most 100 ms more for it; one that ended does not wait), at the poll's own pace
 * (from 100 ms, backing off to one every 2 s) and behind the client's rate gate like the poll; it
 * starts from the last page it read, so a long history is not read again.
 */
import type { WorkloadEvent, WorkloadState } from "../api/index.ts";
import { readEvents, type DiagnosisSource } from "./diagnosis.ts";
import { printable, redact } from "./diagnosis-text.ts";
import type { RequestOptions } from "./http.ts";

/** How long a poll waits for the events read beside it once the state is read. */
const EVENTS_GRACE_MS = 100;
/** Statuses a wait for running ends on: their poll does not wait for the events. */
const ENDED = ["running", "frozen", "error", "deleted"];

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export interface WaitProgress {
  status: string;
  /** The state's message. */
  message: string;
  readyReplicas: number;
  totalReplicas: number;
  /** The newest event's reason and message, when the workload has events. */
  reason?: string;
  eventMessage?: string;
}

/** The progress in one line: `provisioning 0/1 ready: Pulling: pulling image "nginx:1.27"`. */
export function progressLine(p: WaitProgress): string {
  const event = p.reason ? `${p.reason}: ${p.eventMessage ?? ""}` : p.message;
  return `${p.status} ${p.readyReplicas}/${p.totalReplicas} ready${event ? `: ${event}` : ""}`;
}

export class ProgressWatch {
  readonly #src: Pick<DiagnosisSource, "events" | "scrub">;
  readonly #uid: string;
  readonly #secrets: string[];
  readonly #say: (p: WaitProgress) => void;
  #cursor: string | undefined;
  #newest: WorkloadEvent | undefined;
  #pending: Promise<WorkloadEvent | undefined> | undefined;
  #last = "";

  constructor(
    src: Pick<DiagnosisSource, "events" | "scrub">,
    uid: string,
    secrets: Iterable<string>,
    say: (p: WaitProgress) => void,
  ) {
    this.#src = src;
    this.#uid = uid;
    this.#secrets = [...secrets];
    this.#say = say;
  }

  /**
   * Reads the state with `read` and the newest event beside it; says what changed. The wait never
   * waits on the events: a read that is slow (or retried after a 429) is used by a later poll, and
   * no second one starts while it runs.
   */
  async poll(read: () => Promise<WorkloadState>, opts: RequestOptions): Promise<WorkloadState> {
    const { signal, timeoutMs, priority } = opts;
    if (!this.#pending) {
      const p = readEvents(
        this.#src,
        this.#uid,
        { signal, timeoutMs, priority },
        this.#cursor,
        (c) => (this.#cursor = c),
      )
        .then((list) => list.at(-1))
        .catch(() => undefined);
      this.#pending = p;
      void p.then((e) => {
        if (e) this.#newest = e;
        if (this.#pending === p) this.#pending = undefined;
      });
    }
    const pending = this.#pending;
    const state = await read();
    if (!ENDED.includes(state.status)) await Promise.race([pending, sleep(EVENTS_GRACE_MS)]);
    const newest = this.#newest;
    const clean = (t: string) => printable(this.#src.scrub(redact(t, this.#secrets)));
    const p: WaitProgress = {
      status: state.status,
      message: clean(state.message),
      readyReplicas: state.ready_replicas,
      totalReplicas: state.total_replicas,
      ...(newest?.reason
        ? {
            reason: clean(newest.reason),
            eventMessage: clean(newest.display_message ?? newest.message ?? ""),
          }
        : {}),
    };
    const line = progressLine(p);
    if (line !== this.#last) {
      this.#last = line;
      this.#say(p);
    }
    return state;
  }
}
