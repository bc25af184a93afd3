// The built-in tokens (demo-token, other-token, admin-token) are public knowledge: fine on
// a loopback address, an open door anywhere else. A server asked to listen on another
// address refuses to start with any of them unless told otherwise.

import { isIP } from "node:net";
import { DEFAULT_SEED } from "../seed/data.ts";
import type { Seed } from "../seed/schema.ts";

export const DEFAULT_ADMIN_TOKEN = "admin-token";

/** Whether host only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Throws when a non-loopback host would serve a built-in token (in the seed in use, or as
 * the admin token), unless allowDemoTokens.
 */
export function checkExposure(opts: {
  host: string;
  seed: Seed;
  adminToken: string;
  allowDemoTokens?: boolean;
}): void {
  if (isLoopback(opts.host) || opts.allowDemoTokens) return;
  const builtIn = new Set(DEFAULT_SEED.orgs.flatMap((o) => o.tokens));
  const used = opts.seed.orgs.flatMap((o) =>
    o.tokens.filter((t) => builtIn.has(t)).map(() => `org ${o.slug}`),
  );
  const problems: string[] = [];
  if (used.length)
    problems.push(
      `the built-in demo API tokens (${used.join(", ")}); give a seed with your own tokens (--seed)`,
    );
  if (opts.adminToken === DEFAULT_ADMIN_TOKEN) problems.push("the built-in admin token; set --admin-token");
  if (problems.length === 0) return;
  throw new Error(
    `refusing to serve on ${opts.host} (not a loopback address) with ${problems.join(", and ")}. ` +
      "Anyone who can reach the port would know them. Pass --allow-demo-tokens to do it anyway.",
  );
}
