import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Version } from "../../api/index.ts";

const PACKAGE_JSON = fileURLToPath(new URL("../../package.json", import.meta.url));

/** What the server says of itself (GET /version; a snapshot records its `version`). */
export function versionInfo(): Version {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string };
  return {
    name: "cws-reference",
    version: pkg.version,
    gitHash: process.env.CWS_GIT_HASH || "unknown",
    buildDate: process.env.CWS_BUILD_DATE || statSync(PACKAGE_JSON).mtime.toISOString(),
  };
}
