/**
 * What a failed wait found out about its workload (the last events of this deployment and the last
 * log lines, client/diagnosis.ts), as fields and as the one text every front end shows: the
 * client's error message, Pulumi's error on the resource, OpenTofu's and Terraform's diagnostic
 * detail. Secrets never reach it: `redact` runs on every text the service gave before it is kept.
 */

/** At most this many events are kept, the newest, oldest first. */
export const DIAGNOSIS_EVENTS = 10;
/** At most this many log lines are kept, the last ones. */
export const DIAGNOSIS_LOG_LINES = 20;
/** How long gathering the diagnosis may take, in ms. */
export const DIAGNOSIS_BUDGET_MS = 2_000;
/** What a redacted secret reads as. */
export const REDACTED = "[secret]";

export interface DiagnosisEvent {
  /** created_at of the event. */
  at: string;
  reason: string;
  message: string;
  exitCode?: number;
}

export interface WaitDiagnosis {
  uid: string;
  /** The workload's last status and its message (redacted), when a read of its state succeeded. */
  status?: string;
  message?: string;
  readyReplicas?: number;
  totalReplicas?: number;
  /** The last events of this deployment, oldest first (at most DIAGNOSIS_EVENTS). */
  events: DiagnosisEvent[];
  /** The last log lines (at most DIAGNOSIS_LOG_LINES), of the container named by `logsOf`. */
  logs: string[];
  /** current: the running (or last) container; previous: the one before its restart; serial: a VM's console. */
  logsOf: "current" | "previous" | "serial";
  /** How to read more: the `cws` commands (cli/day2/), then the API calls (and their query). */
  more: string[];
  /** Why (part of) the diagnosis could not be read, when it could not: one line. */
  unavailable?: string;
}

/** Short values match only as whole words: a 2-character secret would otherwise eat the text. */
const WHOLE_WORD_BELOW = 4;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `text` with every secret (and its URL- and JSON-encoded forms) replaced by `[secret]`, the
 * longest first so that a secret containing another is replaced whole.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== "string" || !s) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  let out = text;
  for (const f of [...forms].sort((a, b) => b.length - a.length)) {
    out =
      f.length >= WHOLE_WORD_BELOW
        ? out.split(f).join(REDACTED)
        : out.replace(new RegExp(`(?<![\\w-])${escape(f)}(?![\\w-])`, "g"), REDACTED);
  }
  return out;
}

/** The longest a line of the diagnosis keeps of an event's message or a log line. */
export const DIAGNOSIS_LINE_MAX = 500;

/* eslint-disable no-control-regex -- the control characters are what it removes */
/**
 * A text of the service as one printable line: terminal escape sequences and control characters
 * dropped (a log line may colour itself), at most DIAGNOSIS_LINE_MAX characters. Run after
 * `redact`, so that a secret is never cut in two before it is found.
 */
export function printable(text: string): string {
  const plain = text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, " ");
  return plain.length > DIAGNOSIS_LINE_MAX ? `${plain.slice(0, DIAGNOSIS_LINE_MAX - 1)}…` : plain;
}
/* eslint-enable no-control-regex */

const INDENT = "  ";

/**
 * The diagnosis as lines under the error's first line: status, events, log lines, how to get more.
 * `shown`: the first line, whose words (the status's message) are not said again.
 */
export function formatDiagnosis(d: WaitDiagnosis, shown = ""): string {
  const out: string[] = [];
  if (d.status !== undefined) {
    const replicas =
      d.readyReplicas !== undefined && d.totalReplicas !== undefined
        ? ` (${d.readyReplicas}/${d.totalReplicas} ready)`
        : "";
    const message = d.message && !shown.includes(d.message) ? `: ${d.message}` : "";
    out.push(`${INDENT}last status: ${d.status}${replicas}${message}`);
  }
  if (d.events.length) {
    out.push(`${INDENT}last events of this deployment (oldest first):`);
    const width = Math.max(...d.events.map((e) => e.reason.length));
    for (const e of d.events) {
      const code = e.exitCode !== undefined ? ` (exit code ${e.exitCode})` : "";
      out.push(`${INDENT}${INDENT}${e.at}  ${e.reason.padEnd(width)}  ${e.message}${code}`);
    }
  }
  const which = {
    previous: "the previous container, before its restart",
    current: "the current container",
    serial: "the serial console",
  }[d.logsOf];
  if (d.logs.length) {
    out.push(`${INDENT}last ${d.logs.length} log line${d.logs.length === 1 ? "" : "s"} of ${which}:`);
    for (const l of d.logs) out.push(`${INDENT}${INDENT}${l}`);
  } else if (!d.unavailable || d.events.length) {
    out.push(`${INDENT}no log output from ${which}`);
  }
  if (d.unavailable) out.push(`${INDENT}${d.unavailable}`);
  if (d.more.length) out.push(`${INDENT}more: ${d.more.join(" ; ")}`);
  return out.join("\n");
}
