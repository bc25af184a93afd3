/**
 * `tofu plan` and `terraform plan` at scale, ours beside the floor, in the same run: N
 * `cws_volume` objects of `terraform-provider-cws` as installed (`npm pack`, the tarball installed
 * into an empty project) and as released (the executable of this platform's zip) against the
 * reference server (bench/provider-server.ts, its own
 * process), and N objects of each resource of the floor, the smallest provider written the usual
 * way (bench/tofu-floor: Go, terraform-plugin-framework, every call answered at once from what the
 * tool sends): `floor_item` (two attributes, the least a resource can be) and `floor_volume`
 * (`cws_volume`'s schema: the same attributes, a timeouts block and an identity), so that our
 * per-object cost is set against a floor object of the same shape. All come from one filesystem
 * mirror as docs/opentofu.md installs a provider (a script that starts the real one), so all pay
 * the same way in.
 *
 * For each tool (OpenTofu and Terraform, as the toolchain builds them) and each N (default 1,
 * 100, 500) each project is initialized and applied once (untimed), then `plan` (which reads
 * every object first: refresh) and `plan -refresh=false` are timed, REPEAT times each, the
 * providers in turns; the medians of wall time and of CPU time (the tool and the providers it
 * started, from /usr/bin/time: less moved by other work on the machine), of the CPU time of the
 * provider processes alone (each start run under /usr/bin/time by its mirror script), the
 * provider starts per command, and the part per further object (the slope from the smallest N to
 * each larger one). Then what one command at the smallest N spends in provider starts, the release
 * executable (this platform's, scripts/release/cached.ts) and the installed package beside the
 * floor; last, our per-object cost beside `floor_volume`'s, per tool and command.
 *
 * The tofu is the project's (scripts/toolchain/tofu.ts): 1.12.6 when it is built, else the
 * version the toolchain pins (CWS_TOFU names another); the terraform is
 * scripts/toolchain/terraform.ts's, TERRAFORM_VERSION (1.16.4; built when missing; CWS_TERRAFORM
 * names another, --terraform another release the toolchain builds). The tables say which.
 *
 * Run: node bench/tofu.ts [--n 1,100,500] [--repeat 5] [--tools tofu,terraform] [--terraform 1.16.4]
 * [--installed DIR] [--compare DIR] (--installed: a project where the package is installed already, without it this
 * checkout is packed and installed first; --compare: a project where another version of the
 * package is installed, measured in the same turns as another provider).
 */
import { fork } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { runProcess } from "../scripts/run.ts";
import { TERRAFORM_VERSION, ensureTerraform } from "../scripts/toolchain/terraform.ts";
import { REGISTRY_HOSTS, TOFU_VERSION, tofuPath } from "../scripts/toolchain/tofu.ts";
import { installPackage, userEnv } from "./built-package.ts";
import { median } from "./median.ts";
import { releasedExecutables } from "./released.ts";
import { ensureFloorProvider } from "./tofu-floor.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1] : undefined) ?? fallback;
}
const NS = arg("n", "1,100,500").split(",").map(Number);
const REPEAT = Number(arg("repeat", "5"));
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const PLATFORM = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;
/** GNU time, for the CPU seconds of a command and its children (Linux; left out when missing). */
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
/** The versions of tofu this bench looks for, preferred first. */
const TOFU_VERSIONS = [...new Set(["1.12.6", TOFU_VERSION])];
/** The tools to time, by command name. */
const TOOLS = arg("tools", "tofu,terraform").split(",");

interface Tool {
  /** `tofu` or `terraform`: the command, and how the tables name it. */
  command: string;
  path: string;
  /** As it says it: `OpenTofu 1.12.6`. */
  version: string;
}

/** The tool's binary and its version as it says it. */
async function tool(command: string): Promise<Tool> {
  let path: string | undefined;
  if (command === "tofu") {
    path = process.env.CWS_TOFU ?? TOFU_VERSIONS.map((v) => tofuPath(v)).find((p) => existsSync(p));
    if (!path)
      throw new Error(`no tofu built (looked for ${TOFU_VERSIONS.join(", ")}): run npm run tofu:build`);
  } else if (command === "terraform") path = await ensureTerraform(arg("terraform", TERRAFORM_VERSION));
  else throw new Error(`unknown tool '${command}' (tofu, terraform)`);
  const out = await runProcess(path, ["version", "-json"], { env: userEnv() });
  const version = (JSON.parse(out.stdout.slice(out.stdout.indexOf("{"))) as { terraform_version: string })
    .terraform_version;
  return { command, path, version: `${command === "tofu" ? "OpenTofu" : "Terraform"} ${version}` };
}

interface Provider {
  label: string;
  source: string;
  /** N objects of the provider; `prefix` keeps each tool's names apart on the server. */
  block: (n: number, prefix: string) => string;
}

/** N volumes of ours, the provider's source address given. */
const volumes = (label: string, source: string): Provider => ({
  label,
  source,
  block: (n, prefix) =>
    `resource "cws_volume" "v" {\n  count         = ${n}\n  name          = "bench-${prefix}-\${count.index}"\n  size_in_mb    = 512\n  resource_name = "gpu-rental-small"\n}\n`,
});

const COMPARE = process.argv.includes("--compare") ? arg("compare", "") : undefined;
const RELEASED = "terraform-provider-cws, released executable";
const FLOOR_ITEM = "floor item (Go, two attributes)";
const FLOOR_VOLUME = "floor volume (Go, cws_volume's schema)";
const PROVIDERS: Provider[] = [
  volumes("terraform-provider-cws", "cws/cws"),
  ...(COMPARE ? [volumes(`terraform-provider-cws of ${COMPARE}`, "compare/cws")] : []),
  volumes(RELEASED, "release/cws"),
  {
    label: FLOOR_ITEM,
    source: "cws/floor",
    block: (n) => `resource "floor_item" "r" {\n  count = ${n}\n  name  = "r-\${count.index}"\n}\n`,
  },
  {
    label: FLOOR_VOLUME,
    source: "cws/floor",
    block: (n) =>
      `resource "floor_volume" "v" {\n  count         = ${n}\n  name          = "v-\${count.index}"\n  size_in_mb    = 512\n  resource_name = "gpu-rental-small"\n}\n`,
  },
];

/**
 * A filesystem mirror with both providers, each a script that counts its start in `starts` and
 * then runs the provider (ours: the installed launcher; the floor: its binary), under
 * /usr/bin/time when there is one, which adds the process's CPU seconds to `providerCpu`.
 */
function writeMirror(
  dir: string,
  starts: string,
  providerCpu: string,
  launchers: Record<string, string>,
): void {
  for (const [source, exe] of Object.entries(launchers)) {
    const type = source.split("/")[1]!;
    if (!exe) continue;
    for (const host of REGISTRY_HOSTS) {
      const pkg = join(dir, host, source, VERSION, PLATFORM);
      mkdirSync(pkg, { recursive: true });
      const file = join(pkg, `terraform-provider-${type}_v${VERSION}`);
      const run = TIME ? `"${TIME}" -a -o "${providerCpu}" -f "%U %S" "${exe}"` : `"${exe}"`;
      writeFileSync(file, `#!/bin/sh\necho >> "${starts}"\nexec ${run} "$@"\n`);
      chmodSync(file, 0o755);
    }
  }
}

/** The CPU seconds of the lines `/usr/bin/time -f "%U %S"` wrote to `file` (each a process), summed. */
function cpuSeconds(file: string): number {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => /^[\d.]+ [\d.]+$/.test(l.trim()))
    .reduce(
      (a, l) =>
        a +
        l
          .trim()
          .split(" ")
          .reduce((b, x) => b + Number(x), 0),
      0,
    );
}

interface ServerChild {
  baseUrl: string;
  stop(): void;
}

async function startServer(): Promise<ServerChild> {
  const proc = fork(fileURLToPath(new URL("./provider-server.ts", import.meta.url)), ["20"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { baseUrl } = await new Promise<{ baseUrl: string }>((ok, fail) => {
    proc.once("message", (m) => ok(m as { baseUrl: string }));
    proc.once("exit", (c) => fail(new Error(`bench server exited ${c}`)));
  });
  return { baseUrl, stop: () => void proc.send("exit") };
}

const OPS = { plan: ["plan"], "plan -refresh=false": ["plan", "-refresh=false"] } as const;
type Op = keyof typeof OPS;

/** One project the bench times: a provider's objects, planned by one tool. */
interface Run {
  tool: Tool;
  provider: Provider;
}

/**
 * What one command at the smallest N spends in provider starts: the provider processes' CPU time
 * (at N = 1 almost all of it is starting: the handshake, the schema, one read or plan), for the
 * released executable and the installed package beside the Go floor.
 */
function startsTable(
  runs: Run[],
  providerCpus: Record<Op, Record<number, number[]>>[],
  startsOf: Record<Op, number>[],
) {
  const n = NS[0]!;
  console.log(`\nProvider starts of one command at N = ${n}: CPU time of the provider processes (median)\n`);
  console.log("| command | provider | starts | provider CPU | per start |");
  console.log("|---|---|---:|---:|---:|");
  for (const op of Object.keys(OPS) as Op[])
    for (const [i, run] of runs.entries()) {
      if (![RELEASED, PROVIDERS[0]!.label, FLOOR_ITEM].includes(run.provider.label)) continue;
      const cpu = median(providerCpus[i]![op][n]!);
      const starts = startsOf[i]![op];
      console.log(
        `| ${run.tool.command} ${op} | ${run.provider.label} | ${starts} | ${cpu.toFixed(2)} s | ${((cpu / starts) * 1000).toFixed(0)} ms |`,
      );
    }
}

async function main(): Promise<void> {
  const tools: Tool[] = [];
  for (const command of TOOLS) tools.push(await tool(command));
  const floor = await ensureFloorProvider();
  const installed = process.argv.includes("--installed") ? arg("installed", "") : await installPackage();
  const root = mkdtempSync(join(tmpdir(), "cws-bench-tofu-"));
  const server = await startServer();
  const starts = join(root, "starts");
  const providerCpuFile = join(root, "provider-cpu");
  writeMirror(join(root, "mirror"), starts, providerCpuFile, {
    "cws/cws": join(installed, "node_modules", ".bin", "terraform-provider-cws"),
    "cws/floor": floor,
    "release/cws": (await releasedExecutables()).provider,
    "compare/cws": COMPARE ? join(COMPARE, "node_modules", ".bin", "terraform-provider-cws") : "",
  });
  const rc = join(root, "cli.rc");
  const patterns = REGISTRY_HOSTS.flatMap((h) => [
    `"${h}/cws/*"`,
    `"${h}/compare/*"`,
    `"${h}/release/*"`,
  ]).join(", ");
  writeFileSync(
    rc,
    `provider_installation {\n  filesystem_mirror {\n    path    = "${join(root, "mirror")}"\n    include = [${patterns}]\n  }\n  direct {\n    exclude = [${patterns}]\n  }\n}\n`,
  );
  const env = userEnv({
    TF_CLI_CONFIG_FILE: rc,
    TF_IN_AUTOMATION: "1",
    TF_INPUT: "0",
    CHECKPOINT_DISABLE: "1",
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: "demo-token",
  });
  const runs: Run[] = tools.flatMap((t) => PROVIDERS.map((provider) => ({ tool: t, provider })));
  const tf = (run: Run, dir: string, args: string[]) =>
    runProcess(run.tool.path, [...args, "-no-color"], { cwd: dir, env });
  const cpuFile = join(root, "cpu");
  /**
   * Wall seconds of one command, its CPU seconds (the tool and the providers it started, from
   * /usr/bin/time, when there is one: less moved by other work on the machine than wall time), and
   * the provider starts it made.
   */
  const timed = async (run: Run, dir: string, args: string[]) => {
    writeFileSync(starts, "");
    writeFileSync(providerCpuFile, "");
    const t0 = performance.now();
    if (TIME) {
      await runProcess(TIME, ["-f", "%U %S", "-o", cpuFile, run.tool.path, ...args, "-no-color"], {
        cwd: dir,
        env,
      });
    } else await tf(run, dir, args);
    const secs = (performance.now() - t0) / 1000;
    const cpu = TIME ? cpuSeconds(cpuFile) : NaN;
    const providerCpu = TIME ? cpuSeconds(providerCpuFile) : NaN;
    return { secs, cpu, providerCpu, starts: readFileSync(starts, "utf8").length };
  };

  // times[run][op][n] = wall seconds of each run (cpus: CPU seconds); startsOf[run][op] = starts per command.
  const times = runs.map(() => ({}) as Record<Op, Record<number, number[]>>);
  const cpus = runs.map(() => ({}) as Record<Op, Record<number, number[]>>);
  const providerCpus = runs.map(() => ({}) as Record<Op, Record<number, number[]>>);
  const startsOf = runs.map(() => ({}) as Record<Op, number>);
  try {
    for (const n of NS) {
      const dirs = runs.map((run, i) => {
        const dir = join(root, `n${n}-${i}`);
        mkdirSync(dir);
        const type = run.provider.source.split("/")[1];
        writeFileSync(
          join(dir, "main.tf"),
          `terraform {\n  required_providers {\n    ${type} = { source = "${run.provider.source}" }\n  }\n}\n\n${run.provider.block(n, `${run.tool.command}-${i}`)}`,
        );
        return dir;
      });
      for (const [i, run] of runs.entries()) {
        await runProcess(run.tool.path, ["init", "-input=false"], { cwd: dirs[i]!, env });
        await tf(run, dirs[i]!, ["apply", "-auto-approve", "-input=false"]);
      }
      for (const op of Object.keys(OPS) as Op[]) {
        for (const [i, run] of runs.entries()) await tf(run, dirs[i]!, [...OPS[op]]); // warm-up
        for (let r = 0; r < REPEAT; r++) {
          const order = r % 2 ? [...runs.keys()].reverse() : [...runs.keys()];
          for (const i of order) {
            const run = await timed(runs[i]!, dirs[i]!, [...OPS[op]]);
            ((times[i]![op] ??= {})[n] ??= []).push(run.secs);
            ((cpus[i]![op] ??= {})[n] ??= []).push(run.cpu);
            ((providerCpus[i]![op] ??= {})[n] ??= []).push(run.providerCpu);
            startsOf[i]![op] = run.starts;
          }
        }
      }
      for (const [i, run] of runs.entries())
        await tf(run, dirs[i]!, ["destroy", "-auto-approve", "-input=false"]);
    }
  } finally {
    server.stop();
    rmSync(root, { recursive: true, force: true });
  }

  /** The medians of each N, and the seconds per further object from the smallest N to each larger one. */
  const medians = (data: typeof times, i: number, op: Op) => NS.map((n) => median(data[i]![op][n]!));
  const slopes = (m: number[]) => NS.slice(1).map((n, k) => (m[k + 1]! - m[0]!) / (n - NS[0]!));
  const ms = (x: number) => `${(x * 1000).toFixed(2)} ms`;
  const table = (title: string, data: typeof times) => {
    console.log(`\n${title}\n`);
    console.log(
      `| command | provider | starts | ${NS.map((n) => `N = ${n}`).join(" | ")} | ${NS.slice(1)
        .map((n) => `per object to ${n}`)
        .join(" | ")} |`,
    );
    console.log(
      `|---|---|---:|${NS.map(() => "---:").join("|")}|${NS.slice(1)
        .map(() => "---:")
        .join("|")}|`,
    );
    for (const op of Object.keys(OPS) as Op[]) {
      for (const [i, run] of runs.entries()) {
        const m = medians(data, i, op);
        console.log(
          `| ${run.tool.command} ${op} | ${run.provider.label} | ${startsOf[i]![op]} | ${m.map((x) => `${x.toFixed(2)} s`).join(" | ")} | ${slopes(m).map(ms).join(" | ")} |`,
        );
      }
    }
  };
  /** Ours per further object against the floor's volume, the like-shaped object, per tool and command. */
  const perObject = (title: string, data: typeof times) => {
    if (NS.length < 2) return;
    const last = NS[NS.length - 1]!;
    console.log(`\n${title}, per object from N = ${NS[0]} to ${last}\n`);
    console.log("| command | ours | floor volume | ours / floor volume | floor item |");
    console.log("|---|---:|---:|---:|---:|");
    for (const t of tools)
      for (const op of Object.keys(OPS) as Op[]) {
        const of = (label: string) => {
          const i = runs.findIndex((r) => r.tool === t && r.provider.label === label);
          return slopes(medians(data, i, op)).at(-1)!;
        };
        const [ours, vol, item] = [of(PROVIDERS[0]!.label), of(FLOOR_VOLUME), of(FLOOR_ITEM)];
        console.log(
          `| ${t.command} ${op} | ${ms(ours)} | ${ms(vol)} | ${(ours / vol).toFixed(1)}x | ${ms(item)} |`,
        );
      }
  };
  const how = `median of ${REPEAT} runs each, taken in turns; ${tools.map((t) => t.version).join(", ")}, ${process.version}; provider as installed from the packed package`;
  table(`plan of N objects, ours beside the floor: wall time (${how})`, times);
  if (TIME) {
    table(`The same commands: CPU time of the tool and the providers it started (${how})`, cpus);
    table(`The same commands: CPU time of the provider processes alone (${how})`, providerCpus);
  }
  if (TIME) startsTable(runs, providerCpus, startsOf);
  perObject("Ours against the floor's volume (cws_volume's schema): wall time", times);
  if (TIME) {
    perObject("The same: CPU time of the tool and the providers", cpus);
    perObject("The same: CPU time of the provider processes alone", providerCpus);
  }
}

await main();
