/**
 * Installing the release as users install it (test/e2e/release/): the linux-amd64 release of this
 * checkout (scripts/release/cached.ts: built once per inputs), served over HTTP or HTTPS as a team
 * serves its release or mirror, and a PATH that holds only the tools a user has (no `node`).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { packageVersion } from "../../scripts/build.ts";
import { cachedRelease } from "../../scripts/release/cached.ts";
import { hostPlatform } from "../../scripts/release/platforms.ts";
import { runProcess } from "../../scripts/run.ts";
import { pluginCertificate } from "../../provider/opentofu/tls-cert.ts";

export const VERSION = packageVersion();

/** The release directory of this checkout for this machine's platform (built when its inputs changed). */
export async function hostRelease(): Promise<string> {
  const host = hostPlatform();
  if (!host) throw new Error(`no release platform for ${process.platform}-${process.arch}`);
  return cachedRelease([host], (line) => console.error(`[release] ${line}`));
}

export interface ServedDirectory {
  /** The base URL, ending in `/`. */
  url: string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A test certificate for `localhost`: the server's, and what SSL_CERT_FILE trusts. */
export function localhostCertificate(dir: string): { certPem: string; keyPem: string; caFile: string } {
  const { certPem, keyPem } = pluginCertificate();
  const caFile = join(dir, "test-ca.pem");
  mkdirSync(dir, { recursive: true });
  writeFileSync(caFile, certPem);
  return { certPem, keyPem, caFile };
}

/**
 * Serves the files under `dir` read-only (JSON as application/json, as the network mirror protocol
 * asks), on 127.0.0.1: plain HTTP, or HTTPS for `localhost` with `tls`.
 */
export async function serveDirectory(
  dir: string,
  tls?: { certPem: string; keyPem: string },
): Promise<ServedDirectory> {
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const file = normalize(join(dir, path));
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": extname(file) === ".json" ? "application/json" : "application/octet-stream",
      "content-length": statSync(file).size,
    });
    createReadStream(file).pipe(res);
  };
  const server = tls
    ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? "https://localhost" : "http://127.0.0.1"}:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A folder for PATH holding only `tools` (links by name), and the PATH made of it alone: what a
 * user's machine without Node.js has on it. Fails when a `node` can be found on it.
 */
export async function pathWithout(tools: Record<string, string>): Promise<string> {
  const bin = mkdtempSync(join(tmpdir(), "cws-clean-path-"));
  for (const [name, target] of Object.entries(tools)) symlinkSync(target, join(bin, name));
  const found = await runProcess("/bin/sh", ["-c", "command -v node || true"], {
    env: { PATH: bin, HOME: process.env.HOME ?? "/" },
  });
  if (found.stdout.trim()) throw new Error(`node is on the clean PATH: ${found.stdout.trim()}`);
  return bin;
}

/**
 * The HCL project a release's provider is tried with: `cws/cws` at this version, the active
 * regions read and one SSH key `name` whose `public_key` is the HCL expression `publicKey`.
 */
export const releaseHcl = (name: string, publicKey: string) => `terraform {
  required_providers {
    cws = {
      source  = "cws/cws"
      version = "${VERSION}"
    }
  }
}

provider "cws" {}

data "cws_regions" "active" {
  active_only = true
}

resource "cws_ssh_key" "deploy" {
  name       = "${name}"
  public_key = ${publicKey}
}

output "regions" {
  value = length(data.cws_regions.active.regions)
}
`;
