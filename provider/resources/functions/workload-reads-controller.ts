/**
 * The calls of the workload reads (workload-reads.ts): the workload through the Workload resource's
 * own read (its output mapping), its events page by page, its log text as lines. Every text of the
 * service is redacted as a failed wait's diagnosis redacts it (client/diagnosis-text.ts `redact`,
 * then the client's scrub of its token): the workload's env values, the values given in `redact`.
 */
import type { Workload, WorkloadEvent } from "../../../api/index.ts";
import { redact, type CwsClient } from "../../../client/index.ts";
import { resource } from "../../core/lifecycle.ts";
import type { Props } from "../../core/types.ts";
import { compact, pick, unlessGone } from "../../core/values.ts";
import { fromWire } from "../../core/wire.ts";
import { controller } from "../workload/controller.ts";
import { definition } from "../workload/definition.ts";
import { workloadList } from "../workload/list.ts";
import { WORKLOAD_READS } from "./workload-reads.ts";

type Run = (client: CwsClient, args: Props) => Promise<Props>;

const WORKLOAD = resource(definition, controller);

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === "string" && s !== "") : [];

/** What redacts the texts of a workload whose env values are `envs`. */
function redactor(client: CwsClient, envs: unknown, args: Props): (text: string) => string {
  const values = [
    ...strings(Array.isArray(envs) ? envs.map((e) => (e as { value?: unknown }).value) : []),
    ...strings(args.redact),
  ];
  return (text) => client.scrub(redact(text, values));
}

/** The workload, even deleted (its events and logs stay readable); a clear error when there is none. */
async function workloadOf(client: CwsClient, uid: string): Promise<Workload> {
  const w = await unlessGone(() => client.workloads.get(uid));
  if (!w) throw new Error(`uid: the org ${client.org} has no workload ${uid}`);
  return w;
}

/** The uid of the one live RENTAL, VM or BM workload named `name`. */
async function uidByName(client: CwsClient, name: string): Promise<string> {
  const found: string[] = [];
  for await (const w of workloadList.list(client, { name })) found.push(w.uid);
  if (found.length === 1) return found[0]!;
  throw new Error(
    found.length === 0
      ? `name: no live RENTAL, VM or BM workload of the org ${client.org} is named ${name}`
      : `name: ${found.length} workloads are named ${name} (${found.join(", ")}); give one's uid instead`,
  );
}

/** An event with every string redacted and the fields the service left null left out. */
const cleanEvent = (e: WorkloadEvent, clean: (t: string) => string) =>
  compact(Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === "string" ? clean(v) : v])));

export const WORKLOAD_READ_RUNS: Record<keyof typeof WORKLOAD_READS, Run> = {
  async getWorkload(client, args) {
    const uid = typeof args.uid === "string" ? args.uid : await uidByName(client, String(args.name));
    const read = await WORKLOAD.read({ client, log: () => undefined }, uid, {});
    if (!read) throw new Error(`uid: the org ${client.org} has no live workload ${uid}`);
    if (read.outputs.type === "SANDBOX")
      throw new Error(
        `uid: workload ${uid} is a SANDBOX; getWorkload reads RENTAL, VM and BM workloads (getWorkloadEvents and getWorkloadLogs read sandboxes too)`,
      );
    const out = pick(read.outputs, Object.keys(WORKLOAD_READS.getWorkload.result));
    const clean = redactor(client, out.envs, args);
    return typeof out.statusMessage === "string" ? { ...out, statusMessage: clean(out.statusMessage) } : out;
  },

  async getWorkloadEvents(client, args) {
    const uid = String(args.uid);
    const clean = redactor(client, (await workloadOf(client, uid)).envs, args);
    const events: Props[] = [];
    for await (const e of client.workloads.iterateEvents(uid)) events.push(fromWire(cleanEvent(e, clean)));
    return { events };
  },

  async getWorkloadLogs(client, args) {
    const uid = String(args.uid);
    const clean = redactor(client, (await workloadOf(client, uid)).envs, args);
    const text = await client.workloads.logs(uid, {
      tail: args.tail as number | undefined,
      previous: args.previous as boolean | undefined,
      since: args.since as string | undefined,
    });
    const lines = clean(text).split("\n");
    if (lines.at(-1) === "") lines.pop();
    return { lines };
  },
};
