// The request target as the router sees it: the raw path (never normalized: "%2e%2e" is not
// turned into ".." and resolved before routing) and the query string. Route parameters are
// percent-decoded once, by the router.

import { ApiError } from "./errors.ts";

export const API_PREFIX = "/v3";
export const ADMIN_PREFIX = "/admin";

export interface RequestTarget {
  /** Raw path, percent-encoding kept; segments are matched as they are. */
  pathname: string;
  search: string;
}

/**
 * Splits req.url into path and query. 400 INVALID_PATH for a path that is not
 * origin-form, has a segment that is not valid percent-encoding, or a segment that is
 * (or decodes to) "." or "..".
 */
export function parseRequestTarget(url: string | undefined): RequestTarget {
  let target = url ?? "/";
  // absolute-form (proxies): keep the path only
  const abs = target.startsWith("/") ? null : /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (abs) target = target.slice(abs[0].length) || "/";
  const hash = target.indexOf("#");
  if (hash !== -1) target = target.slice(0, hash);
  const q = target.indexOf("?");
  const pathname = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? "" : target.slice(q);
  if (!pathname.startsWith("/")) throw new ApiError("INVALID_PATH", "the request path must start with /");
  // Without "%" every segment is itself decoded, and without "." none is "." or "..".
  if (!pathname.includes("%") && !pathname.includes(".")) return { pathname, search };
  for (const seg of pathname.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      throw new ApiError("INVALID_PATH", `path segment '${seg.slice(0, 100)}' is not valid percent-encoding`);
    }
    if (decoded === "." || decoded === "..") {
      throw new ApiError("INVALID_PATH", `path segments '.' and '..' are not allowed (got '${seg}')`);
    }
  }
  return { pathname, search };
}
