/**
 * The failures an up meets, staged on the reference server (provisioning rules with `failure`), one
 * workload each, for the suites that run them through every front end: what each stages, the
 * secrets planted in them (each kind: an env value marked secret, a registry password, a VM
 * password, the API token, each echoed by the service's texts), and what the failed up's output
 * must say of each.
 */
import { expect } from "vitest";
import { admin, DEMO_TOKEN, type AdminServer } from "../../helpers/http.ts";

export const ENV_SECRET = "env-secret-4b1d9a";
export const REGISTRY_PASSWORD = "registry-pass-77e2c0";
export const VM_PASSWORD = "vm-pass-3c5f81";
/** Every planted secret: none may appear in any output or in the state. */
export const PLANTED = [ENV_SECRET, REGISTRY_PASSWORD, VM_PASSWORD, DEMO_TOKEN];

/** How long the never-ready workload is waited for (readyTimeoutSec). */
export const NEVER_READY_TIMEOUT_SEC = 4;

export interface StagedCase {
  /** The workload's name: the rule matches it. */
  name: string;
  rule: Record<string, unknown>;
  /** What the failed up's output says of it: the failing event's reason and message, the last log line. */
  expected: RegExp[];
}

/** The cases, for workloads named with `prefix` (one rule set per front end on a shared server). */
export function stagedCases(prefix: string): Record<string, StagedCase> {
  const n = (s: string) => `${prefix}-${s}`;
  return {
    pull: {
      name: n("pull"),
      rule: {
        failure: "image_pull",
        message: "pull access denied (tried credentials ci/{registry_password})",
      },
      expected: [
        /Failed +failed to pull image "ghcr\.io\/acme\/api:9\.9": pull access denied \(tried credentials ci\/\[secret\]\)/,
        /no log output from the current container/,
      ],
    },
    exit: {
      name: n("exit"),
      rule: {
        failure: "exit",
        exit_code: 3,
        logs: ["connecting to db with password {env:DB_PASSWORD}", 'fatal: role "app" does not exist'],
      },
      expected: [
        new RegExp(`Error +container ${n("exit")} exited with code 3 \\(exit code 3\\)`),
        /connecting to db with password \[secret\]/,
        /fatal: role "app" does not exist/,
      ],
    },
    loop: {
      name: n("loop"),
      rule: {
        failure: "crash_loop",
        restarts: 2,
        exit_code: 2,
        logs: [`calling the API with token ${DEMO_TOKEN}`, "panic: assignment to entry in nil map"],
      },
      expected: [
        new RegExp(
          `BackOff +back-off restarting failed container ${n("loop")}: exited with code 2 \\(exit code 2\\)`,
        ),
        /log lines? of the previous container, before its restart/,
        /calling the API with token \[secret\]/,
        /panic: assignment to entry in nil map/,
      ],
    },
    vm: {
      name: n("vm"),
      rule: {
        failure: "vm_boot",
        logs: [
          "cloud-init: setting the password {vm_password}",
          "Kernel panic - not syncing: VFS: Unable to mount root fs",
        ],
      },
      expected: [
        /BootTimeout +no heartbeat from the guest agent: the virtual machine did not boot/,
        /log lines of the serial console/,
        /\[serial\] cloud-init: setting the password \[secret\]/,
        /\[serial\] Kernel panic - not syncing: VFS: Unable to mount root fs/,
      ],
    },
    slow: {
      name: n("slow"),
      rule: { failure: "never_ready" },
      expected: [
        /timed out after \d+ ms waiting for workload \S+ to reach running \(last status: provisioning\)/,
        /Unhealthy +readiness probe failed: connection refused/,
        /waiting for database at db:5432 \(attempt 2\)/,
      ],
    },
  };
}

/** Stages every case on the server (its steps spread over `delayMs`). */
export async function stage(
  server: AdminServer,
  cases: Record<string, StagedCase>,
  delayMs = 300,
): Promise<void> {
  for (const c of Object.values(cases))
    await admin(server, "POST", "/orgs/demo/provisioning", { name: c.name, delay_ms: delayMs, ...c.rule });
}

/** The output (every line the tool printed) says what each case expects and holds no planted secret. */
export function expectDiagnosed(output: string, cases: Record<string, StagedCase>): void {
  for (const c of Object.values(cases)) for (const re of c.expected) expect(output).toMatch(re);
  for (const s of PLANTED)
    expect(output, `a planted secret (${s.slice(0, 6)}…) in the output`).not.toContain(s);
}
