/** The Sandbox's check rules: name, template or fork, ports, timeouts, the wait for capacity. Failures name the property. */
import { LIMITS, nameViolation, portViolations, sandboxTimeoutViolation } from "../../../api/index.ts";
import { durationFailure } from "../../core/timeouts.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { UNKNOWN } from "../../core/unknowns.ts";
import { failureOf, type Renames } from "../../core/wire.ts";

const known = (v: unknown) => v !== undefined && v !== UNKNOWN;

/** `names`: the sandbox's renamed properties, so that a wire field is reported as its input. */
export function validateSandbox(news: Props, names: Renames): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const add = (v: { field: string; message: string } | undefined) => {
    if (v) failures.push(failureOf(v, names));
  };
  if (typeof news.name === "string") add(nameViolation("SANDBOX", news.name));
  else if (news.name === undefined) failures.push({ property: "name", reason: "name is required" });
  if (news.template === undefined && news.forkFrom === undefined) {
    failures.push({
      property: "template",
      reason: "template (a READY sandbox template UID) or forkFrom (a running sandbox UID) is required",
    });
  }
  if (known(news.template) && known(news.forkFrom)) {
    failures.push({
      property: "forkFrom",
      reason: "give either template or forkFrom, not both: a fork takes its parent's template",
    });
  }
  if (Array.isArray(news.ports) && !news.ports.some((p) => p === UNKNOWN)) {
    for (const v of portViolations("SANDBOX", news.ports as never)) add(v);
    (news.ports as Props[]).forEach((p, i) => {
      const n = p.port;
      // Port 22 is reported once, as reserved (above), not also as out of range.
      const reserved = n === LIMITS.sandboxReservedPort;
      if (
        typeof n === "number" &&
        !reserved &&
        (n < LIMITS.portMin || n > LIMITS.portMax || !Number.isInteger(n))
      ) {
        failures.push({
          property: `ports[${i}].port`,
          reason: `ports[${i}].port must be an integer between 1024 and 65535`,
        });
      }
      if (p.protocol !== undefined && !["TCP", "UDP", "SCTP", UNKNOWN].includes(p.protocol as string)) {
        failures.push({
          property: `ports[${i}].protocol`,
          reason: `ports[${i}].protocol must be TCP or UDP for sandboxes`,
        });
      }
    });
  }
  for (const k of ["ttlSec", "idleTimeoutSec", "readyTimeoutSec"]) {
    const v = news[k];
    if (v !== undefined && v !== UNKNOWN && (typeof v !== "number" || !Number.isInteger(v) || v < 0)) {
      failures.push({ property: k, reason: `${k} must be a non-negative integer number of seconds` });
    }
  }
  if (typeof news.ttlSec === "number" && typeof news.idleTimeoutSec === "number") {
    add(sandboxTimeoutViolation(news.ttlSec, news.idleTimeoutSec));
  }
  const wait = durationFailure("waitForCapacity", news.waitForCapacity);
  if (wait) failures.push(wait);
  return failures;
}
