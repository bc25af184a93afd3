/**
 * `cws adopt`: reads an org through the service API and writes what brings it under Pulumi
 * (`--format pulumi`: the file `pulumi import --file` takes) or OpenTofu (`--format tofu`: import
 * and resource blocks), to standard output or `--out FILE`. Settings are the provider's:
 * CWS_BASE_URL and CWS_ORG (or --url, --org) and CWS_API_TOKEN, which is read from the
 * environment only and never printed. Each secret the service never returns is named on
 * standard error with how to supply it. Exit status: 0 done, 1 the service failed or refused,
 * 2 bad usage.
 */
import { writeFileSync } from "node:fs";
import { isAuthError } from "../../client/index.ts";
import {
  SERVICE_FLAGS,
  commandClient,
  commandSettings,
  flagProblem,
  refusedTokenText,
} from "../frontend/command-settings.ts";
import { SETTINGS, type Settings } from "../frontend/settings.ts";
import { messageOf } from "../core/values.ts";
import { FORMATS, IMPORT_BY, adoptOrg, kindOf, type Format, type ImportBy } from "./adopt.ts";
import { ADOPT_KINDS } from "./inventory.ts";
import type { MissingSecret } from "./secrets.ts";

export const ADOPT_HELP = `Usage: cws adopt --format pulumi|tofu [options]

Reads every object of an org (workloads, sandboxes, USER sandbox templates, volumes, SSH keys,
workload templates) and writes what adopts them, without changing anything on the service:
  --format pulumi   the file of \`pulumi import --file FILE\`
  --format tofu     HCL with import and resource blocks for \`tofu apply\`

Options:
  --format F        pulumi or tofu (required)
  --out FILE        write to FILE instead of standard output
  --import-by B     tofu: import blocks by identity (default; OpenTofu and Terraform 1.12+) or
                    by id (older releases)
  --type T          only this kind (repeatable, or comma-separated): ${ADOPT_KINDS.join(", ")}
  --name GLOB       only objects whose name matches GLOB (* and ?)
  --project P       only the workloads and sandboxes of project P, with the volumes, SSH keys,
                    templates and parent sandboxes they use
  --url URL         the service's base URL including /v3 (default ${SETTINGS.baseUrl.env})
  --org SLUG        the org (default ${SETTINGS.org.env})
  -h, --help        show this help

The API token is read from ${SETTINGS.apiToken.env} only. FRESH sandbox templates (the platform's),
PUBLIC workload templates and deleted objects are never adopted. See docs/adopt.md.
`;

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

class UsageError extends Error {}

interface AdoptOptions {
  format: Format;
  importBy?: ImportBy;
  out?: string;
  types?: string[];
  name?: string;
  project?: string;
  baseUrl: string;
  org: string;
  token: string;
  settings: Settings;
}

/** The flags of `cws adopt`, for the command line's parser (-h/--help besides). */
export const ADOPT_FLAGS = {
  format: { type: "string" },
  "import-by": { type: "string" },
  out: { type: "string" },
  type: { type: "string", multiple: true },
  name: { type: "string" },
  project: { type: "string" },
  ...SERVICE_FLAGS,
} as const;

/** The values of ADOPT_FLAGS as parsed. */
export interface AdoptFlags {
  format?: string;
  "import-by"?: string;
  out?: string;
  type?: string[];
  name?: string;
  project?: string;
  url?: string;
  org?: string;
  help?: boolean;
}

/** The flags as the command line parsed them, or the parser's message of a bad flag. */
export type ParsedAdoptFlags = { values: AdoptFlags } | { error: string };

function settings(parsed: ParsedAdoptFlags, env: NodeJS.ProcessEnv): AdoptOptions | "help" {
  if ("error" in parsed) throw new UsageError(flagProblem(parsed.error));
  const { values } = parsed;
  if (values.help) return "help";
  const format = values.format;
  if (format === undefined) throw new UsageError("--format is required: pulumi or tofu");
  if (!FORMATS.includes(format as Format))
    throw new UsageError(`--format must be pulumi or tofu (got '${format}')`);
  const types = values.type
    ?.flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  const kinds = types?.map((t) => {
    const k = kindOf(t);
    if (!k) throw new UsageError(`--type must be one of ${ADOPT_KINDS.join(", ")} (got '${t}')`);
    return k;
  });
  if (values.name !== undefined && !values.name)
    throw new UsageError("--name must be a glob such as 'web-*' (got an empty value)");
  if (values.project !== undefined && !values.project)
    throw new UsageError("--project must be a project id (got an empty value)");
  if (values.out !== undefined && !values.out)
    throw new UsageError("--out must be a file name (got an empty value)");
  const resolved = commandSettings(values, env);
  if ("problem" in resolved) throw new UsageError(resolved.problem);
  const { baseUrl, org, token } = resolved.settings;
  const importBy = values["import-by"];
  if (importBy !== undefined && !IMPORT_BY.includes(importBy as ImportBy))
    throw new UsageError(`--import-by must be identity or id (got '${importBy}')`);
  if (importBy !== undefined && format !== "tofu")
    throw new UsageError("--import-by goes with --format tofu (pulumi import takes ids)");
  return {
    format: format as Format,
    importBy: importBy as ImportBy | undefined,
    out: values.out,
    types: kinds,
    name: values.name,
    project: values.project,
    baseUrl,
    org,
    token,
    settings: resolved.settings,
  };
}

/** The line that tells the user how to supply a secret the service never returns. */
export function secretLine(s: MissingSecret, format: Format): string {
  const what = `${s.object.kind} ${s.object.name} (${s.object.uid}): ${s.property} is never returned by the service`;
  if (format === "pulumi") {
    const leaf = s.property.split(".").pop();
    return (
      `${what}; supply it as a Pulumi config secret: \`pulumi config set --secret ${s.configKey} <value>\`, ` +
      `and in the generated program set ${s.property} of the ${s.object.kind} to that config value ` +
      `(YAML: \`${leaf}: \${${s.configKey}}\`)`
    );
  }
  return (
    `${what}; supply it as the OpenTofu variable ${s.variable} ` +
    `(TF_VAR_${s.variable}=<value>, or -var ${s.variable}=<value>)`
  );
}

/**
 * Runs `cws adopt` with its flags as the command line parsed them (cli/cws-command.ts parses the
 * arguments after `adopt` with ADOPT_FLAGS); answers the exit status.
 */
export async function adoptCommand(
  parsed: ParsedAdoptFlags,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let s: AdoptOptions | "help";
  try {
    s = settings(parsed, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`cws adopt: ${e.message}\nRun 'cws adopt --help' for the options.\n`);
    return 2;
  }
  if (s === "help") {
    io.out(ADOPT_HELP);
    return 0;
  }
  const client = commandClient(s.settings, "adopt", io.err);
  let result;
  try {
    result = await adoptOrg(client, {
      format: s.format,
      importBy: s.importBy,
      org: s.org,
      types: s.types,
      name: s.name,
      project: s.project,
    });
  } catch (e) {
    const why = isAuthError(e) ? refusedTokenText(s.org, messageOf(e)) : messageOf(e);
    io.err(`cws adopt: reading org '${s.org}' at ${s.baseUrl} failed: ${why.split(s.token).join("***")}\n`);
    return 1;
  }
  if (s.out !== undefined) writeFileSync(s.out, result.text);
  else io.out(result.text);
  const counts = new Map<string, number>();
  for (const o of result.objects) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(", ") || "nothing to adopt";
  io.err(
    `cws adopt: ${result.objects.length} objects of org '${s.org}' (${summary})${s.out !== undefined ? ` written to ${s.out}` : ""}\n`,
  );
  for (const secret of result.secrets) io.err(`cws adopt: ${secretLine(secret, s.format)}\n`);
  return 0;
}
