/**
 * What OpenTofu and Terraform install a provider from, besides its zips: the release assets the
 * public registries ingest (`..._SHA256SUMS`, its detached signature, `..._manifest.json`), a
 * provider network mirror as static files, and a packed filesystem mirror.
 *
 * Both mirrors hold the provider under the registry hosts of both tools (`registry.opentofu.org`
 * and `registry.terraform.io`), source address `cws/cws`, so one tree serves either tool.
 */
import { createHash } from "node:crypto";
import { copyFileSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../run.ts";

/** The provider's namespace and type: source address `cws/cws`. */
export const NAMESPACE = "cws";
export const TYPE = "cws";
/** The registry hosts the mirrors answer for: OpenTofu's and Terraform's defaults. */
export const REGISTRY_HOSTS = ["registry.opentofu.org", "registry.terraform.io"];
/** The plugin protocol the provider speaks, as the registries' manifest says it. */
export const PROTOCOL_VERSIONS = ["6.0"];

export const zipName = (version: string, os: string, arch: string) =>
  `terraform-provider-${TYPE}_${version}_${os}_${arch}.zip`;
export const sumsName = (version: string) => `terraform-provider-${TYPE}_${version}_SHA256SUMS`;
export const manifestName = (version: string) => `terraform-provider-${TYPE}_${version}_manifest.json`;

/** One provider zip of the release. */
export interface ProviderZip {
  os: string;
  arch: string;
  /** Its file name in the release directory. */
  file: string;
  /** The hex SHA-256 of the zip (the `zh:` hash). */
  sha256: string;
  /** The `h1:` hash of its contents. */
  h1: string;
}

/**
 * The `h1:` hash OpenTofu and Terraform record in `.terraform.lock.hcl` for a package (Go's
 * dirhash "Hash1"): the SHA-256 of the lines `<hex sha256 of the file>  <name>\n` of its files in
 * name order, base64. It covers the names and contents only, not the zip's dates or order.
 */
export function h1Hash(files: readonly { name: string; sha256: string }[]): string {
  const lines = [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => `${f.sha256}  ${f.name}\n`)
    .join("");
  return `h1:${createHash("sha256").update(lines).digest("base64")}`;
}

/** `..._manifest.json`: the protocol versions, as the registries read them. */
export function manifest(): string {
  return `${JSON.stringify({ version: 1, metadata: { protocol_versions: PROTOCOL_VERSIONS } }, null, 2)}\n`;
}

/** A SHA256SUMS file: `<hex>  <name>` lines in name order. */
export function sums(files: readonly { name: string; sha256: string }[]): string {
  return [...files]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((f) => `${f.sha256}  ${f.name}\n`)
    .join("");
}

/** The newest creation time (seconds) of `key`'s secret key and subkeys, which may sign. */
async function keyCreated(key: string): Promise<number> {
  const { stdout } = await runProcess("gpg", ["--batch", "--with-colons", "--list-secret-keys", key]);
  const times = stdout
    .split("\n")
    .filter((l) => l.startsWith("sec:") || l.startsWith("ssb:"))
    .map((l) => Number(l.split(":")[5]));
  if (!times.length) throw new Error(`gpg has no secret key '${key}'`);
  return Math.max(...times);
}

/**
 * `gpg --detach-sign` of `file` with `key` (a key id, fingerprint or user id of the signer's
 * keyring; GNUPGHOME moves the keyring): the binary signature the registries verify, written
 * beside it as `<file>.sig`. With `at` (seconds), the signature is dated then, or when the key was
 * made if that is later: the same file and key then give the same signature every time (an RSA
 * or Ed25519 key; an ECDSA signature differs at every run).
 */
export async function signFile(file: string, key: string, at?: number): Promise<string> {
  const sig = `${file}.sig`;
  const time = at === undefined ? [] : [`--faked-system-time=${Math.max(at, await keyCreated(key))}!`];
  await runProcess("gpg", [
    "--batch",
    "--yes",
    ...time,
    "--local-user",
    key,
    "--output",
    sig,
    "--detach-sign",
    file,
  ]);
  return sig;
}

/** `to` as another name of `from` (a hard link), or a copy where links cannot be made. */
function place(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/**
 * A provider network mirror as static files under `dir`, for any HTTPS host to serve: per
 * registry host, `<host>/cws/cws/index.json` (the versions), `<host>/cws/cws/<version>.json` (a
 * zip per platform with its hashes, `h1:` and `zh:`, so a lock file made from it holds every
 * platform's) and the zips beside them.
 */
export function writeNetworkMirror(dir: string, release: string, version: string, zips: ProviderZip[]): void {
  for (const host of REGISTRY_HOSTS) {
    const at = join(dir, host, NAMESPACE, TYPE);
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "index.json"), `${JSON.stringify({ versions: { [version]: {} } }, null, 2)}\n`);
    const archives = Object.fromEntries(
      zips.map((z) => [`${z.os}_${z.arch}`, { url: z.file, hashes: [z.h1, `zh:${z.sha256}`] }]),
    );
    writeFileSync(join(at, `${version}.json`), `${JSON.stringify({ archives }, null, 2)}\n`);
    for (const z of zips) place(join(release, z.file), join(at, z.file));
  }
}

/**
 * A packed filesystem mirror under `dir`: `<host>/cws/cws/terraform-provider-cws_<version>_<os>_<arch>.zip`
 * per registry host, what a CLI configuration's `filesystem_mirror { path = "<dir>" }` installs from.
 */
export function writeFilesystemMirror(dir: string, release: string, zips: ProviderZip[]): void {
  for (const host of REGISTRY_HOSTS) {
    const at = join(dir, host, NAMESPACE, TYPE);
    mkdirSync(at, { recursive: true });
    for (const z of zips) place(join(release, z.file), join(at, z.file));
  }
}
