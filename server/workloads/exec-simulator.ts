import { ApiError } from "../http/errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord } from "../store/records.ts";

/**
 * Exec in a workload (spec: POST .../exec): RENTAL workloads run a command in their container,
 * simulated here; each exec is recorded as an EXEC event. SANDBOX exec is the sandbox module's
 * (it answers first); without it, a sandbox refuses exec.
 */
export class WorkloadExec {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  /** Refuses a workload that cannot exec at all, before the command is looked at. */
  checkTarget(w: WorkloadRecord): void {
    if (w.type === "SANDBOX") {
      if (w.status !== "running")
        throw new ApiError("WORKLOAD_SANDBOX_NOT_DEPLOYED", `sandbox ${w.uid} is ${w.status}, not running`);
      throw new ApiError(
        "WORKLOAD_SANDBOX_NO_CAPACITY",
        "sandbox runtime not enabled: this server cannot run commands in sandboxes",
      );
    }
    if (w.type !== "RENTAL")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `exec is only supported for RENTAL workloads (workload ${w.uid} is ${w.type})`,
      );
  }

  /** Runs argv in a running RENTAL workload: the lines it prints; the exec is recorded as an event. */
  run(w: WorkloadRecord, argv: string[]): string[] {
    if (w.status !== "running")
      throw new ApiError(
        "WORKLOAD_NOT_RUNNING",
        `cannot exec in workload ${w.uid}: its status is ${w.status}, not running`,
      );
    const lines = simulateExec(w, argv, this.lc);
    this.lc.recordEvent(w, {
      event_type: "EXEC",
      reason: "Exec",
      message: `exec: ${argv.join(" ")}`,
      exit_code: 0,
    });
    return lines;
  }
}

/** What a RENTAL exec prints: a few common commands are simulated, anything else is acknowledged. */
export function simulateExec(w: WorkloadRecord, argv: string[], lc: Lifecycle): string[] {
  const [cmd, ...args] = argv as [string, ...string[]];
  const envs = [...w.envs.map((e) => `${e.name}=${e.value}`), `HOSTNAME=${w.name}`];
  switch (cmd) {
    case "echo":
      return [args.join(" ")];
    case "env":
    case "printenv":
      if (args.length)
        return args
          .map((a) => w.envs.find((e) => e.name === a)?.value ?? (a === "HOSTNAME" ? w.name : ""))
          .filter((x) => x !== "");
      return envs;
    case "hostname":
      return [w.name];
    case "whoami":
      return ["root"];
    case "id":
      return ["uid=0(root) gid=0(root) groups=0(root)"];
    case "pwd":
      return ["/"];
    case "date":
      return [lc.now()];
    case "true":
      return [];
    case "uname":
      return [args.includes("-a") ? `Linux ${w.name} 6.1.0-cws #1 SMP x86_64 GNU/Linux` : "Linux"];
    case "cat":
      if (args[0] === "/etc/hostname") return [w.name];
      break;
    case "ls":
      if (args.length === 0 || args[0] === "/")
        return [
          "bin",
          "etc",
          "home",
          "root",
          "tmp",
          "usr",
          "var",
          ...w.volumes.map((v) => v.mount_path.split("/")[1]!),
        ];
      break;
  }
  return [`cws-reference: ran '${argv.join(" ")}' in container ${w.name} (simulated, no output)`];
}
