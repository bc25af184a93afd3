/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * The one HTTP helper of the tests: requests to a server's API and admin surfaces (JSON in, JSON
 * or text out), the error body check, and WebSockets. Requests go as the demo org unless told
 * otherwise.
 */
import WebSocket from "ws";

/** The bearer tokens of the built-in seed. */
export const DEMO_TOKEN = "demo-token";
export const OTHER_TOKEN = "other-token";
export const ADMIN_TOKEN = "admin-token";

/** A server's API: an in-process test server, one in a child process, or any other base URL. */
export interface ApiServer {
  /** http://host:port/v3 */
  baseUrl: string;
}

/** A server's admin surface. */
export interface AdminServer {
  /** http://host:port/admin */
  adminUrl: string;
}

export interface Res<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** Bearer token; null sends none. */
  token?: string | null;
  headers?: Record<string, string>;
  /** A body sent as is (when `body` is undefined). */
  raw?: string;
}

/** A request with a bearer token (none when null); JSON in, JSON (when the answer says so) or text out. */
export async function request<T = any>(
  url: string,
  method: string,
  body?: unknown,
  opts: RequestOptions = {},
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
  s: ApiServer,
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<Res<T>> {
  return request<T>(`${s.baseUrl}${path}`, method, body, {
    ...opts,
    token: opts.token === undefined ? DEMO_TOKEN : opts.token,
  });
}

/** A request to the admin surface. */
export function adminCall<T = any>(
  s: AdminServer,
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
  s: ApiServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return ok<T>(await call(s, method, path, body), `${method} ${path}`);
}

/** A call to the admin surface that must succeed. */
export async function admin<T = unknown>(
  s: AdminServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return ok<T>(await adminCall(s, method, path, body), `admin ${method} ${path}`);
}

/** Expects an error body with this status and reason; returns the message. */
export function expectError(res: Res, status: number, reason: string): string {
  if (res.status !== status || res.body?.reason !== reason) {
    throw new Error(`expected ${status} ${reason}, got ${res.status} ${res.text}`);
  }
  if (typeof res.body.error !== "string" || res.body.error.length === 0)
    throw new Error(`error message missing: ${res.text}`);
  return res.body.error as string;
}

/** The ws:// URL of an API path. */
export function wsUrl(s: ApiServer, path: string): string {
  return `${s.baseUrl.replace(/^http/, "ws")}${path}`;
}

/** A WebSocket handshake's outcome: the open socket (status 101) or the refusal's status and body. */
export interface Handshake {
  status: number;
  ws?: WebSocket;
  body?: any;
}

/** Opens a WebSocket; resolves with the open socket or the refused handshake's status and body. */
export function handshake(
  url: string,
  opts: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers, perMessageDeflate: false });
    const early: Buffer[] = [];
    ws.on("message", (d: Buffer) => early.push(d));
    (ws as any).early = early;
    ws.once("open", () => resolve({ status: 101, ws }));
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => {
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    ws.once("error", (e) => reject(e));
  });
}

/**
 * Collects a WebSocket's data until `done(text)` (bytes as latin1), including frames received
 * before this call on a socket opened by handshake().
 */
export function readUntil(
  ws: WebSocket,
  done: (text: string) => boolean,
  timeoutMs = 10_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const early: Buffer[] = (ws as any).early ?? [];
    let text = Buffer.concat(early).toString("latin1");
    if (done(text)) return resolve(text);
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(text)}`)), timeoutMs);
    ws.on("message", (data: Buffer) => {
      text += data.toString("latin1");
      if (done(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}
