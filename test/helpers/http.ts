/* eslint-disable @typescript-eslint/no-explicit-any */
/** The one HTTP helper of the tests: JSON requests to a server's API and admin surfaces. */
import { ADMIN_TOKEN, DEMO_TOKEN } from "./server.ts";

export interface Res<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A request with a bearer token (none when null); JSON in, JSON (when the answer says so) or text out. */
export async function request<T = any>(
  url: string,
  method: string,
  body?: unknown,
  opts: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | undefined = opts.raw;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

/** A request to the API (`path` after /v3), as the demo org unless opts.token says otherwise. */
export function call<T = any>(
  s: { baseUrl: string },
  method: string,
  path: string,
  body?: unknown,
  opts: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<Res<T>> {
  return request<T>(`${s.baseUrl}${path}`, method, body, {
    ...opts,
    token: opts.token === undefined ? DEMO_TOKEN : opts.token,
  });
}

/** A request to the admin surface. */
export function adminCall<T = any>(
  s: { adminUrl: string },
  method: string,
  path: string,
  body?: unknown,
  token = ADMIN_TOKEN,
): Promise<Res<T>> {
  return request<T>(`${s.adminUrl}${path}`, method, body, { token });
}

/** The parsed body of a successful answer; throws with the status and body otherwise. */
function ok<T>(r: Res, what: string): T {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: ${r.status} ${r.text}`);
  return (r.text ? JSON.parse(r.text) : undefined) as T;
}

/** A call to the public API as the demo org that must succeed. */
export async function api<T = unknown>(
  s: { baseUrl: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return ok<T>(await call(s, method, path, body), `${method} ${path}`);
}

/** A call to the admin surface that must succeed. */
export async function admin<T = unknown>(
  s: { adminUrl: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return ok<T>(await adminCall(s, method, path, body), `admin ${method} ${path}`);
}
