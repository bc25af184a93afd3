/** How the cws commands reach a running reference server's admin API. */
export interface AdminTarget {
  /** Origin of the server, e.g. http://127.0.0.1:8080 */
  url: string;
  token: string;
}

/** --url, else CWS_URL, else the origin of CWS_BASE_URL, else http://127.0.0.1:8080; token likewise. */
export function adminTarget(url: string | undefined, token: string | undefined): AdminTarget {
  const env = process.env;
  let origin = url ?? env.CWS_URL ?? env.CWS_BASE_URL ?? "http://127.0.0.1:8080";
  try {
    origin = new URL(origin).origin;
  } catch {
    throw new CliError(`--url must be an http(s) URL (got '${origin}')`);
  }
  return { url: origin, token: token ?? env.CWS_ADMIN_TOKEN ?? "admin-token" };
}

/** An error the CLI reports as one line (exit status 1). */
export class CliError extends Error {}

/** Where a command writes: its output and its messages. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * The start every admin command makes with its flags as the command line parsed them (`error`:
 * the parser's message of a bad flag): the flags and `usage`, which writes `cws: MESSAGE` and the
 * help and answers exit status 2; or the exit status already, after a bad flag (2) or --help (0).
 */
export function commandStart<F extends { help?: boolean }>(
  parsed: { values: F } | { error: string },
  io: CommandIo,
  help: string,
): { values: F; usage: (msg: string) => number } | number {
  const usage = (msg: string) => {
    io.err(`cws: ${msg}\n\n${help}`);
    return 2;
  };
  if ("error" in parsed) return usage(parsed.error);
  if (parsed.values.help) {
    io.out(help);
    return 0;
  }
  return { values: parsed.values, usage };
}

export async function adminCall<T>(
  target: AdminTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${target.url}/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    const c = (e as { cause?: { code?: string; errors?: { code?: string }[]; message?: string } }).cause;
    const cause = c?.code ?? c?.errors?.[0]?.code ?? c?.message ?? (e as Error).message;
    throw new CliError(`cannot reach the server at ${target.url} (${cause}); is 'cws serve' running there?`);
  }
  const text = await res.text();
  if (res.status === 401) throw new CliError(`the server at ${target.url} refused the admin token`);
  if (!res.ok) {
    let reason = text;
    try {
      const body = JSON.parse(text) as { error?: string; reason?: string };
      reason = `${body.reason}: ${body.error}`;
    } catch {
      // not JSON: keep the text
    }
    throw new CliError(`${method} /admin${path} failed with ${res.status} (${reason})`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
