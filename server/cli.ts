/**
 * The reference server's commands of `cws`: runs the server (`serve`), and inspects or resets a
 * running one (server/cli/inspect.ts). The `cws` command above (cli/cws-command.ts) parses the
 * command line with each command's flags (SERVE_FLAGS, INSPECT_FLAGS) and dispatches here with the
 * values.
 */
import { RATE_LIMIT_MAX } from "../api/admin.ts";

export const HELP = `Usage: cws <command> [options]

Commands:
  serve                 run the reference server (API under /v3, admin under /admin, dashboard at /)
  resources [--org O]   what is alive on a running server, per org (all orgs by default)
  reset                 put a running server back to its seed (every org's resources dropped)
  inventory             a running server's inventory: capacity, units in use, free per resource
  seed --print          the seed 'cws serve' starts from (with --data-dir / --seed as serve takes them)
  snapshot save NAME    save a running server's whole state under NAME (kept in its database)
  snapshot restore NAME put a running server back to the state saved under NAME, at once
  snapshot list         the snapshots a running server holds
  snapshot delete NAME  delete a snapshot
  adopt                 write what brings an org under Pulumi or OpenTofu (cws adopt --help)
  policy check PLAN     check an OpenTofu/Terraform plan against the guardrails (cws policy --help)

Commands on an org's workloads (CWS_BASE_URL, CWS_ORG, CWS_API_TOKEN; cws <command> --help):
  list [KIND]           what the org has, by kind, with the filters of each kind's list
  logs UID              a workload's log (--tail N, --previous, --follow)
  events UID            a workload's events
  exec UID -- CMD...    run a command in a RENTAL workload or a sandbox
  reboot UID            reboot a VM and wait until it runs again

Options of resources, reset, inventory and snapshot:
  --url URL                 the server (default CWS_URL, else the origin of CWS_BASE_URL, else
                            http://127.0.0.1:8080)
  --admin-token T           admin token (default CWS_ADMIN_TOKEN, else admin-token)
  --json                    JSON instead of a table
  --set RESOURCE=N          inventory: first set RESOURCE's capacity to N (0 sells it out; =seed
                            gives the seed's back); repeatable

Options of seed --print:
  --data-dir DIR            the seed stored in DIR's database, when it has one
  --seed FILE               else this seed file; else the built-in seed
  --json                    the seed as a seed file (tokens included) instead of tables

Options of serve:
  --host HOST               address to listen on (default 127.0.0.1)
  --port N                  port to listen on, 0 for any free port (default 8080)
  --data-dir DIR            keep state in DIR (sqlite); default: in memory
  --seed FILE               seed JSON replacing the built-in seed (used when DIR is empty)
  --provision-delay-ms N    time a deploy stays provisioning (default 300)
  --admin-token T           bearer token of the admin API (default admin-token)
  --rate-limit RPS[:BURST]  limit every org to RPS requests a second, BURST at once (default
                            RPS); the seed and the admin API can set an org's own (default: none)
  --allow-demo-tokens       serve the built-in tokens on a non-loopback --host (refused otherwise)
  --quiet                   no request log
  -h, --help                show this help
`;

function fail(msg: string): never {
  process.stderr.write(`cws: ${msg}\n\n${HELP}`);
  process.exit(2);
}

function int(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) fail(`--${name} must be an integer >= ${min} (got '${v}')`);
  return Number(v);
}

/** `--rate-limit RPS[:BURST]`: RPS a positive number, BURST a positive integer. */
function rateLimit(v: string | undefined): { rps: number; burst?: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(v);
  const rps = m ? Number(m[1]) : 0;
  const burst = m?.[2] === undefined ? undefined : Number(m[2]);
  if (
    !m ||
    rps <= 0 ||
    rps > RATE_LIMIT_MAX ||
    (burst !== undefined && (burst < 1 || burst > RATE_LIMIT_MAX))
  )
    fail(`--rate-limit must be RPS[:BURST], RPS above 0, BURST an integer of at least 1 (got '${v}')`);
  return burst === undefined ? { rps } : { rps, burst };
}

/** The flags of `cws serve`, for the command line's parser (-h/--help besides). */
export const SERVE_FLAGS = {
  host: { type: "string" },
  port: { type: "string" },
  "data-dir": { type: "string" },
  seed: { type: "string" },
  "provision-delay-ms": { type: "string" },
  "admin-token": { type: "string" },
  "rate-limit": { type: "string" },
  "allow-demo-tokens": { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

/** The values of SERVE_FLAGS as parsed. */
export interface ServeFlags {
  host?: string;
  port?: string;
  "data-dir"?: string;
  seed?: string;
  "provision-delay-ms"?: string;
  "admin-token"?: string;
  "rate-limit"?: string;
  "allow-demo-tokens"?: boolean;
  quiet?: boolean;
  help?: boolean;
}

/** `cws` with no command, or with an unknown one: the help, or the usage error with it. */
export function usage(command: string | undefined): void {
  if (command === undefined || command === "-h" || command === "--help" || command === "help")
    process.stdout.write(HELP);
  else fail(`unknown command '${command}'`);
}

/**
 * `cws serve` with its flags as the command line parsed them (`error`: the parser's message of a
 * bad flag, which is a usage error): runs the server until SIGINT or SIGTERM (on Windows, where
 * there is no SIGTERM: Ctrl-C, which Node reports as SIGINT, or Ctrl-Break, as SIGBREAK).
 */
export async function serve(parsed: { values: ServeFlags } | { error: string }): Promise<void> {
  if ("error" in parsed) fail(parsed.error);
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const log = values.quiet
    ? () => {}
    : (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  const limit = rateLimit(values["rate-limit"]);
  const { startServer } = await import("./index.ts");
  const server = await startServer({
    host: values.host ?? "127.0.0.1",
    port: int("port", values.port, 0) ?? 8080,
    dataDir: values["data-dir"],
    seed: values.seed,
    provisionDelayMs: int("provision-delay-ms", values["provision-delay-ms"], 0) ?? 300,
    adminToken: values["admin-token"],
    rateLimit: limit,
    allowDemoTokens: values["allow-demo-tokens"],
    log,
  });
  process.stderr.write(`cws reference server listening on ${server.baseUrl} (admin: ${server.adminUrl})\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`cws: ${signal}, shutting down\n`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGBREAK", () => stop("SIGBREAK"));
}
