/**
 * Where the HashiCorp Terraform CLI used by this project lives, and how to get it.
 *
 * Terraform is built from the Go module proxy and cached outside the clone, keyed by version,
 * beside OpenTofu and the Pulumi CLI (~/.cache/pulumi-cws/terraform-v<version>/bin/terraform).
 * `CWS_TERRAFORM` names a terraform binary to use instead. The proxy serves releases past the
 * last one its version list shows (1.13.3): each is asked for by its exact version.
 *
 * A release's module does not build as published: its go.mod replaces ten nested modules with
 * folders (`./internal/backend/remote-state/<name>`, `./internal/legacy`) that its module zip
 * leaves out. The source edit that makes it build, and nothing more, one code path for every
 * release in RELEASES:
 *   1. the module is copied out of Go's (read-only) module cache into a writable build folder;
 *   2. `internal/legacy` and the state backends the release keeps are downloaded from the Go
 *      module proxy, at the one version it serves them at (NESTED_VERSION), and copied into
 *      their folders, so the replace lines find them;
 *   3. the other backends are left out: their imports and entries in
 *      `internal/backend/init/init.go` and their go.mod lines are removed (`oci` is not on the
 *      proxy at all; since 1.16 the others no longer compile, see RELEASES);
 *   4. the release's patches of the kept backends are applied (each must match, or the build
 *      stops and says so);
 * then `go build .` with CGO_ENABLED=0 and `version.dev=no`, so `terraform version` prints
 * `Terraform v<version>` like a release.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runProcess } from "../run.ts";
import { ensureCachedBuild, toolchainCache } from "./go-build.ts";
import { logTo, type Log } from "./log.ts";

/** The Terraform the suites run (exact version: the proxy's list stops at 1.13.3). */
export const TERRAFORM_VERSION = "1.16.4";
/**
 * The next Terraform, run by `npm run test:next` only (built there, never by setup or `npm test`):
 * what changes for users before they meet it.
 */
export const NEXT_TERRAFORM_VERSION = "1.17.0-beta1";
const TERRAFORM_MODULE = "github.com/hashicorp/terraform";

/**
 * The version of the nested modules: the only one the proxy serves (one commit for all of them).
 * Pinned, so a later publication cannot change what this build compiles.
 */
export const NESTED_VERSION = "v0.0.0-20250409131005-35645b8fca68";

/** The state backends that are nested modules, by folder name and their import in init.go. */
const NESTED_BACKENDS = {
  azure: "backendAzure",
  consul: "backendConsul",
  cos: "backendCos",
  gcs: "backendGCS",
  kubernetes: "backendKubernetes",
  oci: "backendOCI",
  oss: "backendOSS",
  pg: "backendPg",
  s3: "backendS3",
} as const;
export type NestedBackend = keyof typeof NESTED_BACKENDS;

/**
 * A replacement in a file of the source (relative to the module): `from` must be there. With
 * `until`, the text from `from` through the first `until` after it is what is replaced.
 */
interface SourceEdit {
  file: string;
  from: string;
  until?: string;
  to: string;
}

/** How a release builds: which nested state backends it keeps, and the edits they need. */
export interface TerraformRelease {
  /** The backends that build against it; the others are left out. */
  backends: readonly NestedBackend[];
  edits: readonly SourceEdit[];
  /** Files added to the source (relative to the module), with their content. */
  files: Readonly<Record<string, string>>;
}

const PG = "internal/backend/remote-state/pg";

/**
 * The `pg` backend (state in PostgreSQL, what the team tests share) made to build against 1.16,
 * where `Workspaces`, `DeleteWorkspace` and `StateMgr` of a backend and `Get`, `Put` and `Delete`
 * of a state client return `tfdiags.Diagnostics` instead of `error`: its six methods are renamed,
 * unchanged, and a file adds the six of 1.16 that call them and turn their error into
 * diagnostics (what 1.16's own backends do with one).
 */
const PG_DIAGNOSTICS_EDITS: SourceEdit[] = [
  [
    "backend_state.go",
    "(b *Backend) Workspaces() ([]string, error)",
    "(b *Backend) workspaces() ([]string, error)",
  ],
  ["backend_state.go", "b.Workspaces()", "b.workspaces()"],
  [
    "backend_state.go",
    "(b *Backend) DeleteWorkspace(name string, _ bool) error",
    "(b *Backend) deleteWorkspace(name string, _ bool) error",
  ],
  [
    "backend_state.go",
    "(b *Backend) StateMgr(name string) (statemgr.Full, error)",
    "(b *Backend) stateMgr(name string) (statemgr.Full, error)",
  ],
  [
    "client.go",
    "(c *RemoteClient) Get() (*remote.Payload, error)",
    "(c *RemoteClient) get() (*remote.Payload, error)",
  ],
  ["client.go", "(c *RemoteClient) Put(data []byte) error", "(c *RemoteClient) put(data []byte) error"],
  ["client.go", "(c *RemoteClient) Delete() error", "(c *RemoteClient) deleteState() error"],
].map(([file, from, to]) => ({ file: `${PG}/${file!}`, from: from!, to: to! }));

const PG_DIAGNOSTICS_FILE = `// Added by the pulumi-cws toolchain (scripts/toolchain/terraform.ts): the methods of a
// backend and of a state client as Terraform 1.16 declares them, returning diagnostics,
// around this backend's own (renamed, unchanged).

package pg

import (
	"github.com/hashicorp/terraform/internal/states/remote"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
)

func asDiagnostics(err error) tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(err)
}

func (b *Backend) Workspaces() ([]string, tfdiags.Diagnostics) {
	names, err := b.workspaces()
	return names, asDiagnostics(err)
}

func (b *Backend) DeleteWorkspace(name string, force bool) tfdiags.Diagnostics {
	return asDiagnostics(b.deleteWorkspace(name, force))
}

func (b *Backend) StateMgr(name string) (statemgr.Full, tfdiags.Diagnostics) {
	mgr, err := b.stateMgr(name)
	return mgr, asDiagnostics(err)
}

func (c *RemoteClient) Get() (*remote.Payload, tfdiags.Diagnostics) {
	payload, err := c.get()
	return payload, asDiagnostics(err)
}

func (c *RemoteClient) Put(data []byte) tfdiags.Diagnostics {
	return asDiagnostics(c.put(data))
}

func (c *RemoteClient) Delete() tfdiags.Diagnostics {
	return asDiagnostics(c.deleteState())
}
`;

/**
 * Terraform 1.16's apply of a create that fails with an object (the provider's partial state, as
 * ours returns for a workload created but not running) writes the object tainted, then writes it
 * again untainted with no status at all (`ObjectStatus(0)`), and the next state snapshot panics
 * ("Instance ... has status ObjectStatus(0), which cannot be saved in state"). 1.13 kept the
 * tainted object (`maybeTainted`); the edit does the same, so the object stays in state tainted.
 * Stock 1.16.3, 1.16.4 and 1.17.0-beta1 have the bug: docs/opentofu.md says what their users meet.
 */
const TAINT_EDITS: SourceEdit[] = [
  {
    file: "internal/terraform/node_resource_apply_instance.go",
    from: "\t\tif err := n.taintInstanceState(ctx, state, diffApply.Action); err != nil {\n\t\t\treturn diags.Append(err)\n\t\t}\n\t} else {",
    to: "\t\tif err := n.taintInstanceState(ctx, state, diffApply.Action); err != nil {\n\t\t\treturn diags.Append(err)\n\t\t}\n\t\tif diffApply.Action == plans.Create {\n\t\t\tstate = state.AsTainted()\n\t\t}\n\t} else {",
  },
];

const CLOUD = "internal/cloud";

/**
 * Terraform 1.17's `cloud` backend (HCP Terraform) also makes a client of go-tfe v2, which the Go
 * module proxy does not serve (403, "not available"), for one call: a `terraform query` run with
 * `-policies` in HCP Terraform. The edit leaves that client out; such a run then fails with the
 * backend's own error for a client that could not be made. Everything else of the backend stays.
 */
const NO_GO_TFE_V2_EDITS: SourceEdit[] = [
  { file: "go.mod", from: "\tgithub.com/hashicorp/go-tfe/v2 ", until: "\n", to: "" },
  { file: `${CLOUD}/backend.go`, from: '\ttfev2 "github.com/hashicorp/go-tfe/v2"\n', to: "" },
  { file: `${CLOUD}/backend.go`, from: "clientV2 *tfev2.Client", to: "clientV2 *struct{}" },
  {
    file: `${CLOUD}/backend.go`,
    from: "\t\tv2Headers := cfg.Headers.Clone()",
    until: 'log.Printf("[WARN] cloud: failed to create go-tfe v2 client: %s", v2err)\n\t\t}\n',
    to: "",
  },
  {
    file: `${CLOUD}/backend_query.go`,
    from: '\ttfev2models "github.com/hashicorp/go-tfe/v2/api/models"\n',
    to: "",
  },
  {
    file: `${CLOUD}/backend_query.go`,
    from: "func (b *Cloud) createQueryRunV2(",
    until: "\n}\n",
    to: 'func (b *Cloud) createQueryRunV2(context.Context, tfe.QueryRunCreateOptions, []string) (*tfe.QueryRun, error) {\n\treturn nil, fmt.Errorf("this build of Terraform has no go-tfe v2 client")\n}\n',
  },
];

/** A short digest of a release's recipe (its backends, edits and added files). */
function recipeDigest(release: TerraformRelease): string {
  return createHash("sha256").update(JSON.stringify(release)).digest("hex").slice(0, 12);
}

/**
 * 1.16 changed the backend and state client interfaces: the nested backends no longer build.
 * `pg` is patched (PG_DIAGNOSTICS_EDITS); the other eight are left out. A failed create's object
 * stays tainted (TAINT_EDITS). 1.16.4 differs from 1.16.3 in four files, none of them touched
 * here; 1.17.0-beta1 has 1.16's backend and state client interfaces and the same apply code.
 */
const SINCE_1_16: TerraformRelease = {
  backends: ["pg"],
  edits: [...PG_DIAGNOSTICS_EDITS, ...TAINT_EDITS],
  files: { [`${PG}/diagnostics.go`]: PG_DIAGNOSTICS_FILE },
};

/** The releases this script builds. */
export const RELEASES: Readonly<Record<string, TerraformRelease>> = {
  // Every backend the proxy serves builds as it is.
  "1.13.3": {
    backends: ["azure", "consul", "cos", "gcs", "kubernetes", "oss", "pg", "s3"],
    edits: [],
    files: {},
  },
  "1.16.3": SINCE_1_16,
  "1.16.4": SINCE_1_16,
  // 1.16's recipe, and its `cloud` backend without the go-tfe v2 client (NO_GO_TFE_V2_EDITS).
  [NEXT_TERRAFORM_VERSION]: { ...SINCE_1_16, edits: [...SINCE_1_16.edits, ...NO_GO_TFE_V2_EDITS] },
};

/** The build recipe of `version`; fails for a release nobody has checked. */
export function terraformRelease(version: string): TerraformRelease {
  const release = RELEASES[version];
  if (!release)
    throw new Error(`no build recipe for Terraform ${version} (${Object.keys(RELEASES).join(", ")})`);
  return release;
}

/** `<cache>/terraform-v<version>/bin/terraform`, in the same cache as OpenTofu and the Pulumi CLI. */
export function terraformPath(version = TERRAFORM_VERSION): string {
  if (process.env.CWS_TERRAFORM) return process.env.CWS_TERRAFORM;
  return join(toolchainCache(), `terraform-v${version}`, "bin", "terraform");
}

/** `module@version` downloaded by Go into its module cache; resolves to each one's directory. */
async function downloadModules(modules: string[]): Promise<Map<string, string>> {
  const r = await runProcess("go", ["mod", "download", "-json", ...modules], {
    cwd: tmpdir(),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    allowFailure: true,
  });
  // `go mod download -json` prints one JSON object per module, one after the other.
  const dirs = new Map<string, string>();
  const errors: string[] = [];
  for (const text of r.stdout.split(/\n(?=\{)/)) {
    if (!text.trim()) continue;
    const info = JSON.parse(text) as { Path: string; Version: string; Dir?: string; Error?: string };
    if (info.Dir) dirs.set(`${info.Path}@${info.Version}`, info.Dir);
    else errors.push(`${info.Path}@${info.Version}: ${info.Error ?? "no directory"}`);
  }
  const missing = modules.filter((m) => !dirs.has(m));
  if (missing.length > 0)
    throw new Error(
      `go mod download failed for ${missing.join(", ")}: ${errors.join("; ") || r.output.trim()}`,
    );
  return dirs;
}

/** A copy of `from` at `to` that this process may write (the module cache's files are read-only). */
function writableCopy(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(to, { recursive: true, encoding: "utf8" })) {
    const path = join(to, entry);
    chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  }
}

/** `file` without the lines that mention `needle`; fails when there is none (the source moved on). */
function dropLines(file: string, needle: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const kept = lines.filter((l) => !l.includes(needle));
  if (kept.length === lines.length)
    throw new Error(`${file} no longer mentions ${needle}: review the source edit`);
  writeFileSync(file, kept.join("\n"));
}

/**
 * `edit` applied in `dir` (every occurrence; with `until`, the first); fails when `from` or `until`
 * is not there (the source moved on).
 */
function applyEdit(dir: string, edit: SourceEdit): void {
  const file = join(dir, edit.file);
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(edit.from);
  if (start === -1) throw new Error(`${edit.file} no longer has \`${edit.from}\`: review the source edit`);
  if (edit.until === undefined) return writeFileSync(file, text.replaceAll(edit.from, edit.to));
  const end = text.indexOf(edit.until, start + edit.from.length);
  if (end === -1)
    throw new Error(`${edit.file} has no \`${edit.until}\` after \`${edit.from}\`: review the source edit`);
  writeFileSync(file, text.slice(0, start) + edit.to + text.slice(end + edit.until.length));
}

/**
 * The Terraform module of release `version` with the source edit applied, in `dir` (made
 * afresh); resolves to `dir`.
 */
export async function prepareTerraformSource(
  dir: string,
  log: Log,
  version = TERRAFORM_VERSION,
): Promise<string> {
  const release = terraformRelease(version);
  const main = `${TERRAFORM_MODULE}@v${version}`;
  const folders = [...release.backends.map((b) => `internal/backend/remote-state/${b}`), "internal/legacy"];
  const nested = folders.map((f) => `${TERRAFORM_MODULE}/${f}@${NESTED_VERSION}`);
  log(`downloading ${main} and ${nested.length} of its nested modules from the Go module proxy...`);
  const dirs = await downloadModules([main, ...nested]);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  writableCopy(dirs.get(main)!, dir);
  for (const [i, folder] of folders.entries()) {
    const target = join(dir, folder);
    if (existsSync(target)) throw new Error(`${main} now has ${folder}: review the source edit`);
    writableCopy(dirs.get(nested[i]!)!, target);
  }
  const left = (Object.keys(NESTED_BACKENDS) as NestedBackend[]).filter((b) => !release.backends.includes(b));
  log(
    `left out the state backends ${left.join(", ")} (not on the Go module proxy, or not building with ${version})`,
  );
  for (const backend of left) {
    dropLines(join(dir, "internal/backend/init/init.go"), NESTED_BACKENDS[backend]);
    dropLines(join(dir, "go.mod"), `${TERRAFORM_MODULE}/internal/backend/remote-state/${backend} `);
  }
  for (const edit of release.edits) applyEdit(dir, edit);
  for (const [file, text] of Object.entries(release.files)) writeFileSync(join(dir, file), text);
  return dir;
}

/**
 * The cached terraform of release `version`, built from the Go module proxy first when missing
 * (about 6 minutes on 2 cores). `CWS_TERRAFORM`, when it names an existing file, is used as it is.
 */
export async function ensureTerraform(
  version = TERRAFORM_VERSION,
  log: Log = logTo("terraform"),
): Promise<string> {
  const chosen = process.env.CWS_TERRAFORM;
  if (chosen && existsSync(chosen)) return chosen;
  const binary = terraformPath(version);
  const source = join(toolchainCache(), `terraform-v${version}`, "src");
  await ensureCachedBuild(
    {
      what: "Terraform",
      // The release and its recipe: a binary built before the recipe changed is built again.
      version: `${version}+${recipeDigest(terraformRelease(version))}`,
      pkg: ".",
      moduleDir: () => prepareTerraformSource(source, log, version),
      // dev=no: a release build (`terraform version` says v1.16.4, not v1.16.4-dev).
      ldflags: `-s -w -X ${TERRAFORM_MODULE}/version.dev=no`,
    },
    binary,
    log,
  );
  // The edited source is only needed by the build (the compiled packages stay in Go's build cache).
  rmSync(source, { recursive: true, force: true });
  return binary;
}
