/**
 * A create that tries the workload's candidates (placement.ts) in order: each is registered and
 * deployed; a deploy refused for capacity deletes that registration (the service has no PATCH of
 * resource_name or region) and moves on to the next. When every candidate is refused, with
 * `waitForCapacity` the candidates are tried again, after a backoff, until the wait runs out; then,
 * or at once without it, the create fails naming each candidate and its reason, with nothing left
 * registered. Any other failure (credits, validation) never moves on.
 */
import { CAPACITY_REASONS, type WorkloadCreate } from "../../../api/index.ts";
import { hasReason } from "../../../client/errors.ts";
import { sleep } from "../../../client/retry.ts";
import { capacityWaitMs } from "../../core/timeouts.ts";
import { MadeButFailedError, sayNotice, sayStatus, type Context, type Props } from "../../core/types.ts";
import { messageOf, unlessGone } from "../../core/values.ts";
import { candidateWords, candidatesOf, type Candidate } from "./placement.ts";
import { explainRefusal, transitionOnce } from "./transitions.ts";

/** First pause between rounds, and the longest (each round doubles it, less up to a quarter). */
export const ROUND_PAUSE_MS = { first: 1_000, max: 30_000 };

const CAPACITY_WORDS: Record<(typeof CAPACITY_REASONS)[number], string> = {
  WORKLOAD_NO_CAPACITY: "no capacity",
  WORKLOAD_BM_CLAIM_CONFLICT: "no bare-metal capacity",
};

interface Refusal {
  candidate: Candidate;
  reason: (typeof CAPACITY_REASONS)[number];
  message: string;
}

/** The capacity refusal `e` is, if it is one. */
function capacityRefusal(e: unknown, candidate: Candidate): Refusal | undefined {
  const reason = CAPACITY_REASONS.find((r) => hasReason(e, r));
  return reason && hasReason(e, reason) ? { candidate, reason, message: e.serviceMessage } : undefined;
}

/** "gpu-rental-large: no capacity": what each refusal of a round was. */
const refusalWords = (refused: readonly Refusal[]) =>
  refused.map((r) => `${candidateWords(r.candidate)}: ${CAPACITY_WORDS[r.reason]}`).join("; ");

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))}s`;

/** The pause before round `round + 1`: doubling from ROUND_PAUSE_MS.first, with jitter. */
export function roundPauseMs(round: number, random = Math.random): number {
  const step = Math.min(ROUND_PAUSE_MS.first * 2 ** (round - 1), ROUND_PAUSE_MS.max);
  return Math.round(step * (1 - random() * 0.25));
}

/**
 * Registers the workload on `candidate` and deploys it: its uid once the deploy is taken, the
 * refusal when it is refused for capacity (the registration deleted). Another failure of the deploy
 * keeps the registration (MadeButFailedError: the lifecycle keeps it as partial state).
 */
async function attempt(
  ctx: Context,
  candidate: Candidate,
  register: (c: Candidate) => Promise<string>,
): Promise<string | Refusal> {
  const uid = await register(candidate);
  try {
    await transitionOnce(ctx, uid, "deploy", (s) => s !== "registered");
    return uid;
  } catch (e) {
    const refused = capacityRefusal(e, candidate);
    if (!refused) throw new MadeButFailedError(uid, explainRefusal(e));
    try {
      await unlessGone(() => ctx.client.workloads.delete(uid));
    } catch (d) {
      throw new MadeButFailedError(
        uid,
        new Error(
          `${candidateWords(candidate)} had no capacity and deleting its registration failed (${messageOf(d)}); it stays registered`,
        ),
      );
    }
    return refused;
  }
}

/**
 * Places the workload of `inputs` on the first candidate with capacity (see the module's comment)
 * and answers its uid, deployed; `register` registers it on a candidate (at most once).
 */
export async function placeWorkload(
  ctx: Context,
  inputs: Props,
  register: (c: Candidate) => Promise<string>,
): Promise<string> {
  const candidates = candidatesOf(inputs);
  const waitMs = capacityWaitMs(ctx, inputs) ?? 0;
  const started = Date.now();
  for (let round = 1; ; round++) {
    const refused: Refusal[] = [];
    for (const [i, candidate] of candidates.entries()) {
      const got = await attempt(ctx, candidate, register);
      if (typeof got === "string") {
        const waited = round > 1 ? `waited ${seconds(Date.now() - started)} for capacity; ` : "";
        if (refused.length || waited)
          sayNotice(
            ctx,
            `${refused.length ? `${refusalWords(refused)}; ` : ""}${waited}placed on ${candidateWords(candidate)}`,
          );
        return got;
      }
      refused.push(got);
      const next = candidates[i + 1];
      if (next) ctx.log(`${refusalWords([got])}; trying ${candidateWords(next)}`);
    }
    const left = started + waitMs - Date.now();
    if (left <= 0) throw new Error(noCapacity(refused, waitMs, candidates[0]!));
    const pause = Math.min(roundPauseMs(round), left);
    sayStatus(
      ctx,
      `waiting for capacity (${refusalWords(refused)}): trying again in ${seconds(pause)}, ${seconds(left)} left of waitForCapacity`,
    );
    await sleep(pause, ctx.signal);
  }
}

/** The failure of a create no candidate had capacity for: each candidate and the service's reason. */
function noCapacity(refused: readonly Refusal[], waitMs: number, first: Candidate): string {
  const each = refused.map((r) => `${candidateWords(r.candidate)}: ${r.message} (${r.reason})`).join("; ");
  const waited = waitMs > 0 ? ` within ${seconds(waitMs)} of waitForCapacity` : "";
  const hint = waitMs > 0 ? "" : "; waitForCapacity makes a create wait for capacity";
  return `no candidate had capacity${waited}: ${each}. Nothing is left registered: the next run tries ${candidateWords(first)} first again${hint}`;
}

/** The create body of `inputs` placed on `candidate`. */
export function placedBody(
  body: (inputs: Props) => WorkloadCreate,
  inputs: Props,
  c: Candidate,
): WorkloadCreate {
  return body({ ...inputs, resourceName: c.resourceName, ...(c.region ? { region: c.region } : {}) });
}
