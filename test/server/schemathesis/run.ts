/**
 * Schemathesis (pinned in .venv) against `cws serve`, as a user runs it: the server's own
 * document, the demo org, every check, the config and hooks of this folder. Used by
 * test/server/schemathesis.test.ts (one fixed seed) and bench/schemathesis.ts (a wider run).
 *
 * The server runs in its own process group with a seed whose sandbox inventory holds
 * SANDBOX_CAPACITY sandboxes, so the real processes the fuzzer starts stay few; it is stopped
 * (SIGTERM, which stops its sandboxes, then SIGKILL of the group) whatever the run's outcome.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMATHESIS_BIN } from "../../../scripts/toolchain/languages.ts";
import { DEFAULT_SEED } from "../../../server/seed/data.ts";
import { startTestServer } from "../../helpers/server.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * Sandboxes the server may run at once during a run (a sandbox is one process, about 2.6 MB of
 * RSS). The walks deploy and fork sandboxes and seldom delete them: at 16, the later deploys and
 * forks of a run were refused (503, no capacity) and seed 3 covered 56 of 80 links (80 at 64).
 */
export const SANDBOX_CAPACITY = 64;

export interface SchemathesisOptions {
  seed: number;
  maxExamples: number;
  /** Phases to run (default all four). */
  phases?: string[];
  /** Schemathesis workers (default 1: one thread, the order its seed gives). */
  workers?: number;
  /** Stateful scenarios (walks along the links; default maxExamples). */
  scenarios?: number;
  /**
   * The plain run a user makes with no setup: no hooks and no config but the org and the token
   * (PLAIN_CONFIG), every check, admin and WebSocket operations left out on the command line,
   * Schemathesis's own defaults for the rest (its stateful phase's scenarios and steps, its
   * links inferred from names beside the document's own). The data a create needs comes from
   * the document's examples alone.
   */
  plain?: boolean;
}

/** The whole config of the plain run: the org and the token. */
export const PLAIN_CONFIG = `headers = { Authorization = "Bearer demo-token" }

[parameters]
"path.org" = "demo"
`;

/** What the plain run's command line leaves out: the admin surface and the WebSocket upgrades. */
export const PLAIN_EXCLUDE = ["--exclude-tag", "admin", "--exclude-path-regex", "/ws$"];

export interface SchemathesisResult {
  exitCode: number;
  /** Test cases generated. */
  cases: number;
  /** Unique failures by code (ST202, ...), as the summary counts them. */
  failures: Record<string, number>;
  /** Failures the hooks dropped (hooks.py: the contract's own answers). */
  filtered: number;
  links: { covered: number; total: number };
  /** Documented operations (admin and WebSocket aside) and those answered a 2xx at least once. */
  operations: string[];
  /** Operations Schemathesis tested (its summary's "Tested"). */
  tested: number;
  /** Operations its "Missing test data" warning names (404 to every positive case), 0 when none. */
  missingTestData: number;
  reached: string[];
  seconds: number;
  output: string;
}

const count = (text: string, re: RegExp): number => Number(re.exec(text)?.[1] ?? 0);

/** The documented operation a request went to: its method and path template. */
function templateMatcher(paths: string[]): (method: string, path: string) => string | undefined {
  // Literal segments first, as the server routes (server/http/router.ts).
  const compiled = paths.map((p) => ({
    p,
    re: new RegExp(`^${p.replace(/\{\w+\}/g, "[^/]+")}$`),
    rank: p
      .split("/")
      .map((s) => (s.startsWith("{") ? "0" : "1"))
      .join(""),
  }));
  compiled.sort((a, b) => (a.rank < b.rank ? 1 : a.rank > b.rank ? -1 : 0));
  return (method, path) => {
    const hit = compiled.find((c) => c.re.test(path));
    return hit ? `${method} ${hit.p}` : undefined;
  };
}

export async function runSchemathesis(opts: SchemathesisOptions): Promise<SchemathesisResult> {
  if (!existsSync(SCHEMATHESIS_BIN))
    throw new Error(
      `${SCHEMATHESIS_BIN} is missing: run \`npm run languages:setup\` (it installs schemathesis)`,
    );
  const dir = mkdtempSync(join(tmpdir(), "cws-schemathesis-"));
  const seed = structuredClone(DEFAULT_SEED);
  for (const item of seed.inventory) if (item.type === "sandbox") item.capacity = SANDBOX_CAPACITY;
  const seedFile = join(dir, "seed.json");
  writeFileSync(seedFile, JSON.stringify(seed));
  // A deploy is running at once, so the walks reach what a running workload takes.
  const server = await startTestServer({
    subprocess: true,
    seed: seedFile,
    provisionDelayMs: 0,
    processGroup: true,
  });
  const origin = server.origin;
  const started = Date.now();
  try {
    const doc = (await (await fetch(`${origin}/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags: string[]; "x-websocket"?: boolean }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.tags.includes("admin") && !op["x-websocket"])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // The folder's config, with this run's number of stateful scenarios; or the plain run's.
    const config = join(dir, "schemathesis.toml");
    writeFileSync(
      config,
      opts.plain
        ? PLAIN_CONFIG
        : readFileSync(join(HERE, "schemathesis.toml"), "utf8").replace(
            'hooks = "hooks.py"',
            `hooks = ${JSON.stringify(join(HERE, "hooks.py"))}`,
          ) + `\n[phases.stateful.generation]\nmax-examples = ${opts.scenarios ?? opts.maxExamples}\n`,
    );
    const args = [
      "--config-file",
      config,
      "--no-color",
      "run",
      `${origin}/v3/openapi.json`,
      "--seed",
      String(opts.seed),
      "--max-examples",
      String(opts.maxExamples),
      "--workers",
      String(opts.workers ?? 1),
      // The service's own paths (the admin surface is the server's, not the contract). Written
      // out, so that GET /v3/openapi.json is tested too: Schemathesis leaves out the operation
      // it loaded the document from unless a filter selects it.
      ...(opts.plain ? ["--checks", "all", ...PLAIN_EXCLUDE] : ["--include-path-regex", "^/v3/"]),
      "--report",
      "har",
      "--report-dir",
      dir,
      ...(opts.phases ? ["--phases", opts.phases.join(",")] : []),
    ];
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
      const st = spawn(SCHEMATHESIS_BIN, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      st.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      st.stderr!.on("data", (d: Buffer) => (out += d.toString()));
      st.on("error", reject);
      st.on("exit", (c) => resolve({ code: c ?? 1, output: out }));
    });
    const failures: Record<string, number> = {};
    for (const m of output.matchAll(/❌ (ST\d+|[A-Z][\w ]+?) [^:\n]*: (\d+)/g))
      failures[m[1]!] = Number(m[2]);
    const har = readdirSync(dir).find((f) => f.startsWith("har"));
    // CWS_SCHEMATHESIS_HAR=<file>: keep the run's requests and answers (HAR) for a look after it.
    if (har && process.env.CWS_SCHEMATHESIS_HAR)
      copyFileSync(join(dir, har), `${process.env.CWS_SCHEMATHESIS_HAR}.${opts.seed}.json`);
    const entries = har
      ? (
          JSON.parse(readFileSync(join(dir, har), "utf8")) as {
            log: { entries: { request: { method: string; url: string }; response: { status: number } }[] };
          }
        ).log.entries
      : [];
    const match = templateMatcher(Object.keys(doc.paths));
    const reached = new Set<string>();
    for (const e of entries) {
      if (e.response.status < 200 || e.response.status > 299) continue;
      const op = match(e.request.method, new URL(e.request.url).pathname);
      if (op && operations.includes(op)) reached.add(op);
    }
    return {
      exitCode: code,
      cases: count(output, /(\d+) generated/),
      failures,
      filtered: count(output, /Filtered: (\d+)/),
      links: {
        covered: count(output, /API Links:\s+(\d+) covered/),
        total: count(output, /API Links:\s+\d+ covered \/ \d+ selected \/ (\d+) total/),
      },
      operations,
      tested: count(output, /Tested:\s+(\d+)/),
      missingTestData: count(output, /Missing test data: (\d+) operation/),
      reached: [...reached].sort(),
      seconds: (Date.now() - started) / 1000,
      output,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
