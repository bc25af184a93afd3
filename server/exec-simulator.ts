import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord } from "./records.ts";

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
