import { existsSync } from "node:fs";
import { join } from "node:path";
import type {
  InventoryList,
  InventoryStock,
  SandboxTemplate,
  SshKey,
  Volume,
  WorkloadOperation,
  WorkloadTemplate,
} from "../../api/index.ts";
import { DEFAULT_SEED } from "../seed/data.ts";
import { loadSeedFile, type Seed } from "../seed/schema.ts";
import { Store } from "../store/store.ts";
import { adminCall, CliError, type AdminTarget } from "./admin-client.ts";
import { formatTable, type Column } from "./table.ts";

type Out = (text: string) => void;

/** `cws reset`: the server back to its seed. */
export async function reset(target: AdminTarget, json: boolean, out: Out): Promise<void> {
  const body = await adminCall<{ status: string }>(target, "POST", "/reset");
  out(
    json ? `${JSON.stringify(body)}\n` : `${target.url}: reset to its seed (every org's resources dropped)\n`,
  );
}

interface Resources {
  workloads: WorkloadOperation[];
  volumes: Volume[];
  ssh_keys: SshKey[];
  templates: WorkloadTemplate[];
  sandbox_templates: SandboxTemplate[];
}

interface Row {
  org: string;
  kind: string;
  name: string;
  uid: string;
  status: string;
  detail: string;
}

const usd = (n: number) => `$${n < 0.01 && n > 0 ? n.toPrecision(2) : n.toFixed(2)}/h`;

function rows(org: string, r: Resources): Row[] {
  const out: Row[] = [];
  for (const w of r.workloads) {
    const s = w.state;
    const access = [...s.urls.map((u) => u.url), ...(s.public_ip ? [`${s.public_ip}:${s.ssh_port}`] : [])];
    out.push({
      org,
      kind: w.type === "SANDBOX" ? "sandbox" : "workload",
      name: w.name,
      uid: w.uid,
      status: s.status,
      detail: [
        w.type === "SANDBOX" ? w.image : w.type,
        w.resource.name,
        usd(w.cost_per_hour),
        ...access,
      ].join(" "),
    });
  }
  for (const v of r.volumes)
    out.push({
      org,
      kind: "volume",
      name: v.name,
      uid: v.uid,
      status: v.state.status,
      detail: `${v.size} MiB ${v.resource_name}${v.workload_uid ? ` on ${v.workload_uid}:${v.mount_path}` : ""}`,
    });
  for (const k of r.ssh_keys)
    out.push({
      org,
      kind: "ssh-key",
      name: k.name,
      uid: k.uid,
      status: "-",
      detail: k.public_key_raw.split(" ")[0]!,
    });
  for (const t of r.templates)
    out.push({
      org,
      kind: "template",
      name: t.name,
      uid: t.uid,
      status: "-",
      detail: `${t.type} ${t.visibility}`,
    });
  for (const t of r.sandbox_templates)
    out.push({
      org,
      kind: "sandbox-template",
      name: t.name,
      uid: t.uid,
      status: t.status,
      detail: t.display_name,
    });
  return out;
}

/** `cws resources [--org]`: everything alive, per org (all orgs of the seed by default). */
export async function resources(
  target: AdminTarget,
  org: string | undefined,
  json: boolean,
  out: Out,
): Promise<void> {
  const orgs = org
    ? [org]
    : (await adminCall<{ items: { org: string }[] }>(target, "GET", "/orgs")).items.map((o) => o.org);
  const byOrg: Record<string, Resources> = {};
  for (const o of orgs)
    byOrg[o] = await adminCall<Resources>(target, "GET", `/orgs/${encodeURIComponent(o)}/resources`);
  if (json) {
    out(`${JSON.stringify(org ? byOrg[org] : byOrg, null, 2)}\n`);
    return;
  }
  const all = orgs.flatMap((o) => rows(o, byOrg[o]!));
  if (all.length === 0) {
    out(`nothing alive in ${org ? `org ${org}` : `any org (${orgs.join(", ")})`}\n`);
    return;
  }
  out(
    formatTable(
      [
        { title: "ORG", value: (r: Row) => r.org },
        { title: "KIND", value: (r) => r.kind },
        { title: "NAME", value: (r) => r.name },
        { title: "UID", value: (r) => r.uid },
        { title: "STATUS", value: (r) => r.status },
        { title: "DETAIL", value: (r) => r.detail },
      ],
      all,
    ),
  );
}

/** `--set NAME=N` (N workloads at once) or `--set NAME=seed` (the seed's capacity again). */
export function parseCapacity(text: string): { name: string; capacity: number | null } {
  const m = /^([^=\s]+)=(\d+|seed)$/.exec(text);
  if (!m) throw new CliError(`--set must be RESOURCE=N (N an integer >= 0) or RESOURCE=seed (got '${text}')`);
  return { name: m[1]!, capacity: m[2] === "seed" ? null : Number(m[2]) };
}

/**
 * `cws inventory [--set RESOURCE=N]...`: sets the capacities asked for (selling a resource out
 * with 0, restocking it), then lists every inventory resource with its capacity, the units in use
 * (all orgs) and those free.
 */
export async function inventory(
  target: AdminTarget,
  sets: readonly string[],
  json: boolean,
  out: Out,
): Promise<void> {
  for (const { name, capacity } of sets.map(parseCapacity))
    await adminCall<InventoryStock>(target, "PUT", `/inventory/${encodeURIComponent(name)}`, { capacity });
  const { items } = await adminCall<InventoryList>(target, "GET", "/inventory");
  if (json) {
    out(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  out(
    formatTable(
      [
        { title: "RESOURCE", value: (i: InventoryStock) => i.name },
        { title: "TYPE", value: (i) => i.type },
        { title: "REGION", value: (i) => i.region ?? "any" },
        { title: "IN USE", value: (i) => String(i.in_use), right: true },
        {
          title: "CAPACITY",
          value: (i) => `${i.capacity ?? "unlimited"}${i.source === "admin" ? " (admin)" : ""}`,
          right: true,
        },
        {
          title: "FREE",
          value: (i) => (i.free === null ? "-" : i.free === 0 ? "sold out" : String(i.free)),
          right: true,
        },
      ],
      items,
    ),
  );
}

/**
 * The seed `cws serve` with the same flags starts from: the one stored in DIR when its database
 * is seeded, else the --seed file, else the built-in seed.
 */
export function effectiveSeed(
  dataDir: string | undefined,
  seedFile: string | undefined,
): { seed: Seed; from: string } {
  if (dataDir && existsSync(join(dataDir, "cws.sqlite"))) {
    const store = new Store(dataDir);
    try {
      if (store.isSeeded()) return { seed: store.seed, from: `the database in ${dataDir}` };
    } finally {
      store.close();
    }
  }
  if (seedFile) return { seed: loadSeedFile(seedFile), from: seedFile };
  return { seed: DEFAULT_SEED, from: "the built-in seed" };
}

const mask = (token: string) => (token.length <= 6 ? "******" : `${token.slice(0, 4)}…`);

/** `cws seed --print`: the effective seed as tables, or as a seed file (`--json`, tokens included). */
export function printSeed(
  dataDir: string | undefined,
  seedFile: string | undefined,
  json: boolean,
  out: Out,
): void {
  const { seed, from } = effectiveSeed(dataDir, seedFile);
  if (json) {
    out(`${JSON.stringify(seed, null, 2)}\n`);
    return;
  }
  const section = <T>(title: string, columns: readonly Column<T>[], rows: readonly T[]) =>
    out(`${title}\n${formatTable(columns, rows)}\n`);
  out(`Seed: ${from}\n\n`);
  section(
    "Orgs (tokens shortened; --json prints them)",
    [
      { title: "ORG", value: (o) => o.slug },
      { title: "TOKENS", value: (o) => o.tokens.map(mask).join(", ") },
      { title: "CREDITS (USD)", value: (o) => String(o.credits), right: true },
    ],
    seed.orgs,
  );
  section(
    "Regions",
    [
      { title: "UID", value: (r) => r.uid },
      { title: "NAME", value: (r) => r.name },
      { title: "ACTIVE", value: (r) => (r.active ? "yes" : "no") },
    ],
    seed.regions,
  );
  section(
    "Inventory",
    [
      { title: "NAME", value: (i) => i.name },
      { title: "TYPE", value: (i) => i.type },
      { title: "USD/H", value: (i) => String(i.cost_per_hour), right: true },
      {
        title: "CAPACITY",
        value: (i) => (i.capacity === undefined ? "unlimited" : String(i.capacity)),
        right: true,
      },
      { title: "GPU", value: (i) => (i.gpu_type ? `${i.gpu_count}x ${i.gpu_type}` : "-") },
      { title: "REGION", value: (i) => i.region ?? "any" },
    ],
    seed.inventory,
  );
  section(
    "Images",
    [
      { title: "KIND", value: (i: { kind: string; name: string; display_name: string }) => i.kind },
      { title: "NAME", value: (i) => i.name },
      { title: "DISPLAY NAME", value: (i) => i.display_name },
    ],
    [
      ...seed.vm_images.map((i) => ({ kind: "VM", ...i })),
      ...seed.bm_images.map((i) => ({ kind: "BM", ...i })),
    ],
  );
  section(
    "Reservations",
    [
      { title: "UID", value: (r) => r.uid },
      { title: "ORG", value: (r) => r.org },
      { title: "TYPE", value: (r) => r.type },
      { title: "RESOURCE", value: (r) => r.resource_name },
      { title: "REGION", value: (r) => r.region ?? "-" },
      { title: "STATUS", value: (r) => r.status },
    ],
    seed.reservations,
  );
  section(
    "Templates",
    [
      { title: "KIND", value: (t: { kind: string; uid: string; name: string; detail: string }) => t.kind },
      { title: "UID", value: (t) => t.uid },
      { title: "NAME", value: (t) => t.name },
      { title: "DETAIL", value: (t) => t.detail },
    ],
    [
      ...seed.sandbox_templates.map((t) => ({
        kind: "sandbox",
        uid: t.uid,
        name: t.name,
        detail: `${t.resource_name} $${t.cost_per_hour}/h${t.desktop ? " desktop" : ""}`,
      })),
      ...seed.templates.map((t) => ({
        kind: "workload",
        uid: t.uid,
        name: t.name,
        detail: `${t.type} PUBLIC`,
      })),
    ],
  );
  if (seed.volume_cost_per_gib_hour !== undefined)
    out(`Volume storage: ${seed.volume_cost_per_gib_hour} USD per GiB-hour\n`);
}
