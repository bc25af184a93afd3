import { generateKeyPairSync } from "node:crypto";
import { typeComponent, type WorkloadType } from "../../api/index.ts";
import type { Store } from "../store/store.ts";
import type { OpenApiDocument, OpenApiOperation } from "./document.ts";

/**
 * The running server's own data, as `examples` of the document it serves: the inventory's
 * resource names of each type, the VM and BM images, the active regions, the READY FRESH sandbox
 * templates, the public workload templates, and valid SSH key lines. A client (or a fuzzer such
 * as Schemathesis, which mixes a document's examples into what it generates) finds there the
 * values a create needs that no schema can list: they come from the seed the server runs (the
 * built-in one or `cws serve --seed FILE`), so they change with it.
 */
export interface ServerData {
  /** Inventory resource names by workload type. */
  resources: Record<WorkloadType, string[]>;
  vmImages: string[];
  bmImages: string[];
  /** Active regions. */
  regions: string[];
  /** The region of each BM resource (its servers'), else an active region. */
  bmRegion: Record<string, string>;
  /** UIDs of READY FRESH (platform) sandbox templates. */
  sandboxTemplates: string[];
  /** Public workload templates: their UIDs and manifests. */
  templates: { uid: string; type: WorkloadType; manifest: Record<string, unknown> }[];
  /** Valid OpenSSH public key lines (made for this server: no one holds their private keys). */
  sshKeys: string[];
}

const INVENTORY_TYPE: Record<string, WorkloadType> = {
  rental: "RENTAL",
  vm: "VM",
  bm: "BM",
  sandbox: "SANDBOX",
};

/** An OpenSSH ed25519 public key line of a new key pair. */
function sshKeyLine(comment: string): string {
  const der = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" });
  const type = Buffer.from("ssh-ed25519");
  const len = (b: Buffer) => {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(b.length, 0);
    return Buffer.concat([out, b]);
  };
  const blob = Buffer.concat([len(type), len(der.subarray(der.length - 32))]);
  return `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
}

/** Key lines made once per server process: a document's examples stay the same between fetches. */
let keyLines: string[] | undefined;

/** The data of the server `store` holds, as the document's examples state it. */
export function serverData(store: Store): ServerData {
  const seed = store.seed;
  const resources: ServerData["resources"] = { RENTAL: [], VM: [], BM: [], SANDBOX: [] };
  for (const item of seed.inventory) resources[INVENTORY_TYPE[item.type]!].push(item.name);
  const regions = seed.regions.filter((r) => r.active).map((r) => r.uid);
  const bmRegion: Record<string, string> = {};
  for (const item of seed.inventory)
    if (item.type === "bm" && (item.region ?? regions[0])) bmRegion[item.name] = item.region ?? regions[0]!;
  const sandboxTemplates = [...store.sandboxTemplates.all()]
    .filter((t) => t.org === null && t.kind === "FRESH" && t.status === "READY")
    .map((t) => t.uid);
  const templates = [...store.templates.all()]
    .filter((t) => t.org === null)
    .map((t) => ({ uid: t.uid, type: t.type, manifest: t.manifest }));
  keyLines ??= [1, 2, 3].map((n) => sshKeyLine(`example-${n}@cws`));
  return {
    resources,
    vmImages: seed.vm_images.map((i) => i.name),
    bmImages: seed.bm_images.map((i) => i.name),
    regions,
    bmRegion,
    sandboxTemplates,
    templates,
    sshKeys: keyLines,
  };
}

type Body = Record<string, unknown>;

/** Valid create bodies of each workload type, made of the server's data (none where it has none). */
export function workloadBodies(data: ServerData): Record<WorkloadType, Body[]> {
  const rental = data.resources.RENTAL.map((resource_name, i) => ({
    type: "RENTAL",
    name: `example-rental-${i + 1}`,
    image: "nginx:1.27",
    resource_name,
  }));
  const fromTemplates = data.templates.filter((t) => t.type === "RENTAL").map((t) => t.manifest);
  const vm = data.resources.VM.flatMap((resource_name, i) =>
    data.vmImages.map((image, j) => ({
      type: "VM",
      name: `example-vm-${i + 1}-${j + 1}`,
      resource_name,
      image,
      vm_config: { password: "example-password" },
    })),
  );
  // A BM workload takes one SSH key at least: a UID of the org's, which the document cannot know
  // (a link from POST /ssh-keys puts a created one in).
  const bm = data.resources.BM.filter((r) => data.bmRegion[r]).flatMap((resource_name, i) =>
    data.bmImages.map((image, j) => ({
      type: "BM",
      name: `example-bm-${i + 1}-${j + 1}`,
      resource_name,
      image,
      region: data.bmRegion[resource_name],
      ssh_keys: ["sshkey-of-the-org"],
    })),
  );
  const sandbox = data.sandboxTemplates.flatMap((image, j) =>
    (data.resources.SANDBOX.length ? data.resources.SANDBOX : [undefined]).map((resource_name) => ({
      type: "SANDBOX",
      name: `example-sandbox-${j + 1}`,
      image,
      ...(resource_name ? { resource_name } : {}),
    })),
  );
  return { RENTAL: [...fromTemplates, ...rental], VM: vm, BM: bm, SANDBOX: sandbox };
}

/** An OpenAPI `examples` map of bodies: one Example Object each. */
const exampleMap = (bodies: Body[], name: (b: Body, i: number) => string) =>
  Object.fromEntries(bodies.map((value, i) => [name(value, i), { value }]));

/** A component schema's property, where examples go. */
function property(
  doc: OpenApiDocument,
  component: string,
  name: string,
): Record<string, unknown> | undefined {
  const props = doc.components.schemas[component]?.properties as
    Record<string, Record<string, unknown>> | undefined;
  return props?.[name];
}

/** The operation of `method` on `path` (a document path). */
const operation = (doc: OpenApiDocument, method: string, path: string): OpenApiOperation | undefined =>
  doc.paths[path]?.[method];

function bodyExamples(op: OpenApiOperation | undefined, examples: Record<string, { value: unknown }>): void {
  const media = (op?.requestBody as { content?: Record<string, Record<string, unknown>> } | undefined)
    ?.content?.["application/json"];
  if (media && Object.keys(examples).length) media.examples = examples;
}

function pathExamples(op: OpenApiOperation | undefined, name: string, values: string[]): void {
  if (!op || !values.length) return;
  for (const p of op.parameters as Record<string, unknown>[]) {
    if (p.in === "path" && p.name === name) p.schema = { ...(p.schema as object), examples: values };
  }
}

/**
 * `doc` (a copy: the caller's is left as it is) with the server's data as examples: on the
 * fields that name it (resource_name, image, region of each create body; a volume's
 * resource_name; an SSH key's line), as whole create bodies of each operation that takes one,
 * and on the path parameters of the objects the server starts with.
 */
export function withServerExamples(doc: OpenApiDocument, data: ServerData): OpenApiDocument {
  const out = structuredClone(doc);
  const bodies = workloadBodies(data);
  const fields: [WorkloadType, string, string[]][] = [
    ["RENTAL", "resource_name", data.resources.RENTAL],
    ["VM", "resource_name", data.resources.VM],
    ["VM", "image", data.vmImages],
    ["BM", "resource_name", data.resources.BM],
    ["BM", "image", data.bmImages],
    ["BM", "region", [...new Set(Object.values(data.bmRegion))]],
    ["SANDBOX", "resource_name", data.resources.SANDBOX],
    ["SANDBOX", "image", data.sandboxTemplates],
  ];
  for (const [type, name, values] of fields) {
    const prop = property(out, typeComponent(type, "WorkloadCreate"), name);
    if (prop && values.length) prop.examples = values;
  }
  const volumeResource = property(out, "VolumeCreate", "resource_name");
  if (volumeResource && data.resources.RENTAL.length) volumeResource.examples = data.resources.RENTAL;
  const keyLine = property(out, "SshKeyCreate", "ssh_key");
  if (keyLine) keyLine.examples = data.sshKeys;

  const all = Object.values(bodies).flat();
  const byName = (b: Body) => String(b.name);
  bodyExamples(operation(out, "post", "/v3/orgs/{org}/workloads"), exampleMap(all, byName));
  bodyExamples(
    operation(out, "post", "/v3/orgs/{org}/templates"),
    exampleMap(
      all.map((manifest) => ({ name: `${byName(manifest)}-template`, type: manifest.type, manifest })),
      (b) => String(b.name),
    ),
  );
  const firstOfEach = Object.values(bodies).flatMap((b) => b.slice(0, 1));
  bodyExamples(
    operation(out, "patch", "/v3/orgs/{org}/templates/{uid}"),
    exampleMap(
      firstOfEach.map((manifest) => ({ manifest })),
      (b) => `${String((b.manifest as Body).type).toLowerCase()}-manifest`,
    ),
  );
  bodyExamples(
    operation(out, "post", "/v3/orgs/{org}/volumes"),
    exampleMap(
      data.resources.RENTAL.map((resource_name, i) => ({
        name: `example-volume-${i + 1}`,
        size_in_mb: 1024,
        resource_name,
      })),
      byName,
    ),
  );
  bodyExamples(
    operation(out, "post", "/v3/orgs/{org}/ssh-keys"),
    exampleMap(
      data.sshKeys.map((ssh_key, i) => ({ name: `example-key-${i + 1}`, ssh_key })),
      byName,
    ),
  );
  // The objects every org sees from the start: the platform's sandbox templates, the public
  // workload templates.
  pathExamples(operation(out, "get", "/v3/orgs/{org}/sandbox-templates/{uid}"), "uid", data.sandboxTemplates);
  pathExamples(
    operation(out, "get", "/v3/orgs/{org}/templates/{uid}"),
    "uid",
    data.templates.map((t) => t.uid),
  );
  return out;
}
