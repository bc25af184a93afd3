// The in-sandbox agent. One runs inside every sandbox (PID 2 of the sandbox's PID
// namespace; bubblewrap's own init is PID 1), started by launch.ts through bwrap.
// It is self-contained (imports only Node built-ins): the host strips its types once and
// writes it as /run/cws/agent.mjs (read-only in the sandbox), run by the host's Node
// binary bind-mounted read-only at /.cws/node. It is over 400 lines because it must stay
// that one self-contained file: each module more would be one more file to strip, write
// and mount into every sandbox.
//
// Protocol with the host (control.ts):
// - Control channel: newline-delimited JSON on stdin (requests from the host) and stdout
//   (replies and events to the host). Nothing else may be written to stdout.
//     request:  { id, op, ...args }
//     reply:    { id, ok: true, ...result } | { id, ok: false, code, message }
//     event:    { ev: "ready" } | { ev: "termExit", term, code } | { ev: "desktop", listening }
// - Data streams (file contents, terminal bytes, RFB bytes): the agent connects to the
//   host's unix socket, bind-mounted read-only at /run/cws/s, writes the 32-hex-digit
//   token of the request plus "\n", then raw bytes flow both ways.
//
// All file I/O happens here, inside the sandbox's mount namespace, where the host's
// files are not visible (only the read-only system dirs and the sandbox's own writable
// dirs are), so no path or symlink can lead outside the sandbox.

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Readable, Writable } from "node:stream";

interface AgentConfig {
  hostname: string;
  desktop: boolean;
  maxFileBytes: number;
  maxOutputBytes: number;
  terminalBackend: "auto" | "python" | "script";
  desktopGeometry: string;
  /** Command (and options) that runs what exec and terminals start, e.g. prlimit setting limits. */
  processPrefix?: string[];
}

const HOST_SOCKET = "/run/cws/s";
const PTY_HELPER = "/.cws/pty_helper.py";
const RFB_SOCKET = "/run/cws-desktop/rfb.sock";
const DESKTOP_DISPLAY = ":0";
const RFB_TCP_PORT = 5900;

const config = JSON.parse(process.env.CWS_AGENT_CONFIG ?? "{}") as AgentConfig;
delete process.env.CWS_AGENT_CONFIG;

/** [command, args] of a process started for a client, behind config.processPrefix. */
function limited(cmd: string, args: string[]): [string, string[]] {
  const p = config.processPrefix ?? [];
  return p.length ? [p[0]!, [...p.slice(1), cmd, ...args]] : [cmd, args];
}

// ---------------------------------------------------------------------------------------
// Hygiene: close file descriptors inherited from the host by accident (anything not
// close-on-exec beyond stdio; Node's own descriptors are all close-on-exec), so that no
// command run in the sandbox can use them. Ignore the polite termination signals so that
// e.g. `pkill node` in the sandbox does not take the agent down.
for (const name of fs.readdirSync("/proc/self/fd")) {
  const fd = Number(name);
  if (!(fd > 2)) continue;
  try {
    const info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    const m = /^flags:\s+([0-7]+)/m.exec(info);
    if (m && (parseInt(m[1], 8) & 0o2000000) === 0) fs.closeSync(fd);
  } catch {
    // gone already (e.g. the descriptor used to list the directory)
  }
}
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE"] as const) process.on(sig, () => {});

const baseEnv: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) baseEnv[k] = v;
if (config.desktop) baseEnv.DISPLAY = DESKTOP_DISPLAY;
const SHELL = fs.existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
baseEnv.SHELL = SHELL;

// ---------------------------------------------------------------------------------------
// Control channel

type Msg = Record<string, unknown>;

function send(msg: Msg): void {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

class AgentError extends Error {
  code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

function mapFsError(err: unknown, p: string): AgentError {
  if (err instanceof AgentError) return err;
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "ENOENT":
      return new AgentError("NOT_FOUND", `no such file: ${p}`);
    case "ENOTDIR":
    case "EEXIST":
      return new AgentError("INVALID_PATH", `a parent of ${p} is not a directory`);
    case "EISDIR":
      return new AgentError("INVALID_PATH", `is a directory: ${p}`);
    case "EROFS":
      return new AgentError("INVALID_PATH", `read-only location: ${p}`);
    case "EACCES":
    case "EPERM":
      return new AgentError("INVALID_PATH", `permission denied: ${p}`);
    case "ELOOP":
      return new AgentError("INVALID_PATH", `too many levels of symbolic links: ${p}`);
    case "ENAMETOOLONG":
      return new AgentError("INVALID_PATH", `path too long: ${p}`);
    case "EFBIG":
      return new AgentError("TOO_LARGE", `file too large: ${p}`);
    case "ENOSPC":
    case "EDQUOT":
      return new AgentError("TOO_LARGE", `no space left in the sandbox for ${p}`);
    case "ENXIO":
    case "ENODEV":
    case "ETXTBSY":
      return new AgentError("INVALID_PATH", `not a regular file: ${p}`);
    case "EIO":
    case "EINVAL":
    case "EOPNOTSUPP":
    case "EBUSY":
      return new AgentError("INVALID_PATH", `cannot use ${p} as a file (${e.code})`);
    default:
      return new AgentError("UNAVAILABLE", `${e.code ?? "error"}: ${e.message ?? String(err)}`);
  }
}

function connectHost(token: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(HOST_SOCKET);
    sock.once("error", reject);
    sock.once("connect", () => {
      sock.off("error", reject);
      sock.on("error", () => sock.destroy());
      sock.write(token + "\n");
      resolve(sock);
    });
  });
}

function endSocket(sock: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (sock.destroyed) return resolve();
    sock.once("close", () => resolve());
    sock.end();
  });
}

function checkPath(p: unknown): string {
  if (typeof p !== "string" || !p.startsWith("/") || p.includes("\0")) {
    throw new AgentError("INVALID_PATH", "path must be absolute");
  }
  return path.posix.resolve(p);
}

const handlers: Record<string, (req: Msg) => Promise<Msg>> = {
  ping: async () => ({}),
  exec: (req) => runExec(String(req.cmd), Number(req.timeoutMs)),
  readFile: (req) => readFileOp(checkPath(req.path), String(req.token)),
  writeFile: (req) => writeFileOp(checkPath(req.path), String(req.token), Number(req.size)),
  sshKey: (req) => sshKeyOp(req.action === "remove" ? "remove" : "add", String(req.key)),
  termOpen: (req) => termOpen(String(req.term), String(req.token), Number(req.cols), Number(req.rows)),
  termResize: async (req) => {
    await terminals.get(String(req.term))?.resize(Number(req.cols), Number(req.rows));
    return {};
  },
  termKill: async (req) => {
    terminals.get(String(req.term))?.kill();
    return {};
  },
  desktopConnect: (req) => desktopConnect(String(req.token)),
};

/**
 * Calls onLine for each "\n"-terminated line of the control channel. Not readline: it also ends
 * a line at U+2028 and U+2029, which JSON.stringify leaves raw inside strings, so a request
 * carrying one (an SSH key comment, an exec command) would never be read and its caller would
 * wait out the request's timeout.
 */
function onControlLine(onLine: (line: string) => void, onClose: () => void): void {
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  process.stdin.on("end", onClose);
}

function serve(line: string): void {
  let req: Msg;
  try {
    req = JSON.parse(line) as Msg;
  } catch {
    return;
  }
  const handler = handlers[String(req.op)];
  const p = handler
    ? handler(req)
    : Promise.reject(new AgentError("UNAVAILABLE", `unknown op ${String(req.op)}`));
  p.then(
    (res) => send({ ...res, id: req.id, ok: true }),
    (err: unknown) => {
      const e = err instanceof AgentError ? err : new AgentError("UNAVAILABLE", String(err));
      send({ id: req.id, ok: false, code: e.code, message: e.message });
    },
  );
}
// On end, the host went away: nothing left to serve (bwrap --die-with-parent kills us anyway).
onControlLine(serve, () => process.exit(0));

// ---------------------------------------------------------------------------------------
// exec

function signalExitCode(signal: NodeJS.Signals | null): number {
  const n = signal ? os.constants.signals[signal] : undefined;
  return n ? 128 + n : 1;
}

function runExec(cmd: string, timeoutMs: number): Promise<Msg> {
  return new Promise((resolve) => {
    // detached: the command gets its own session and process group, so a timeout can
    // kill the whole group, and background jobs it leaves behind keep running after
    // the shell exits (we stop waiting for the pipes shortly after the shell exits).
    const child = spawn(...limited("/bin/sh", ["-c", cmd]), {
      cwd: "/workspace",
      env: baseEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    // Each stream is capped at config.maxOutputBytes; the rest is read and dropped.
    child.stdout!.on("data", (b: Buffer) => {
      if (outLen < config.maxOutputBytes) out.push(b.subarray(0, config.maxOutputBytes - outLen));
      outLen += b.length;
    });
    child.stderr!.on("data", (b: Buffer) => {
      if (errLen < config.maxOutputBytes) err.push(b.subarray(0, config.maxOutputBytes - errLen));
      errLen += b.length;
    });
    let timedOut = false;
    let exitCode: number | undefined;
    let done = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve({
        stdout: Buffer.concat(out).toString("base64"),
        stderr: Buffer.concat(err).toString("base64"),
        code: timedOut ? 124 : (exitCode ?? 1),
        timedOut,
        truncated: outLen > config.maxOutputBytes || errLen > config.maxOutputBytes,
      });
    };
    child.on("error", (e) => {
      err.push(Buffer.from(`exec failed: ${e.message}\n`));
      exitCode = 127;
      finish();
    });
    child.on("exit", (code, signal) => {
      exitCode = code ?? signalExitCode(signal);
      // Background processes may hold the pipes open; give the pipes a moment to
      // drain what the shell wrote, then stop reading.
      setTimeout(finish, 100);
    });
    child.on("close", finish);
  });
}

// ---------------------------------------------------------------------------------------
// Files

const O_READ = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;
const O_WRITE =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

/** Kernel pseudo-filesystems: no file there is data a client can read or write. */
function isSpecialPlace(p: string): boolean {
  return ["/proc", "/sys", "/dev"].some((d) => p === d || p.startsWith(d + "/"));
}

/** The file and the host socket of one transfer, each set once it is open. */
interface Transfer {
  fh?: fsp.FileHandle;
  sock?: net.Socket;
}

/** Runs one file transfer: a failure drops the socket and is mapped for `p`; the file is closed either way. */
async function transfer(p: string, run: (t: Transfer) => Promise<Msg>): Promise<Msg> {
  const t: Transfer = {};
  try {
    return await run(t);
  } catch (err) {
    t.sock?.destroy();
    throw mapFsError(err, p);
  } finally {
    await t.fh?.close();
  }
}

async function readFileOp(p: string, token: string): Promise<Msg> {
  return transfer(p, async (t) => {
    const real = await fsp.realpath(p);
    if (isSpecialPlace(real))
      throw new AgentError("INVALID_PATH", `not a regular file: ${p} (in ${real.split("/")[1]})`);
    const fh = (t.fh = await fsp.open(real, O_READ));
    const st = await fh.stat();
    if (st.isDirectory()) throw new AgentError("INVALID_PATH", `is a directory: ${p}`);
    if (!st.isFile()) throw new AgentError("INVALID_PATH", `not a regular file: ${p}`);
    if (st.size > config.maxFileBytes) {
      throw new AgentError("TOO_LARGE", `file is ${st.size} bytes; the limit is ${config.maxFileBytes}`);
    }
    // The size goes first, then exactly that many bytes (a file that shrinks meanwhile
    // breaks the stream; one that grows is cut at the size it had).
    const sock = (t.sock = await connectHost(token));
    sock.write(`${st.size}\n`);
    const buf = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    while (total < st.size) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, st.size - total), null);
      if (bytesRead === 0)
        throw new AgentError(
          "BUSY",
          `file ${p} shrank while it was read (written meanwhile?): read it again`,
        );
      total += bytesRead;
      const chunk = Buffer.from(buf.subarray(0, bytesRead));
      if (!sock.write(chunk)) await new Promise((r) => sock.once("drain", r));
      if (sock.destroyed) throw new AgentError("UNAVAILABLE", "stream closed by the host");
    }
    await endSocket(sock);
    return { size: total };
  });
}

async function refuseSpecial(p: string): Promise<void> {
  if (p === "/" || isSpecialPlace(p)) throw new AgentError("INVALID_PATH", `writing to ${p} is not allowed`);
  // The same through a symlink (to the file or to a parent directory).
  const real = await fsp.realpath(p).catch(() => fsp.realpath(path.posix.dirname(p)).catch(() => ""));
  if (real && isSpecialPlace(real)) throw new AgentError("INVALID_PATH", `writing to ${p} is not allowed`);
}

async function writeFileOp(p: string, token: string, size: number): Promise<Msg> {
  await refuseSpecial(p);
  if (size > config.maxFileBytes) throw new AgentError("TOO_LARGE", `limit is ${config.maxFileBytes} bytes`);
  return transfer(p, async (t) => {
    await fsp.mkdir(path.posix.dirname(p), { recursive: true, mode: 0o755 });
    const fh = (t.fh = await fsp.open(p, O_WRITE, 0o644));
    const st = await fh.stat();
    if (!st.isFile()) throw new AgentError("INVALID_PATH", `not a regular file: ${p}`);
    await fh.truncate(0);
    const sock = (t.sock = await connectHost(token));
    let total = 0;
    for await (const chunk of sock as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > size) throw new AgentError("TOO_LARGE", "more data than announced");
      await fh.write(chunk);
    }
    if (total !== size) throw new AgentError("UNAVAILABLE", `short write: got ${total} of ${size} bytes`);
    sock.destroy();
    return { size: total };
  });
}

async function sshKeyOp(action: "add" | "remove", key: string): Promise<Msg> {
  const dir = "/root/.ssh";
  const file = `${dir}/authorized_keys`;
  key = key.trim();
  if (!key || /[\r\n\0]/.test(key)) throw new AgentError("INVALID_PATH", "public key must be a single line");
  try {
    let current = "";
    try {
      current = await fsp.readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      if (action === "remove") return { changed: false };
    }
    const lines = current.split("\n").filter((l) => l.trim() !== "");
    const present = lines.some((l) => l.trim() === key);
    let next: string[];
    if (action === "add") {
      if (present) next = lines;
      else next = [...lines, key];
    } else {
      next = lines.filter((l) => l.trim() !== key);
    }
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    await fsp.chmod(dir, 0o700);
    const changed = next.length !== lines.length;
    if (changed || action === "add") {
      const tmp = `${file}.tmp-${process.pid}`;
      await fsp.writeFile(tmp, next.length ? next.join("\n") + "\n" : "", { mode: 0o600 });
      await fsp.chmod(tmp, 0o600);
      await fsp.rename(tmp, file);
    }
    return { changed };
  } catch (err) {
    throw mapFsError(err, file);
  }
}

// ---------------------------------------------------------------------------------------
// Terminals: a real PTY from python3's pty module (pty_helper.py), or, without python3,
// from util-linux `script` (resize then goes through `stty -F` on the PTY slave).

interface AgentTerminal {
  /** Resolves once the PTY has (or, for python, is about to get) the new size. */
  resize(cols: number, rows: number): Promise<void>;
  kill(): void;
}
const terminals = new Map<string, AgentTerminal>();

function findPython(): string | undefined {
  for (const p of ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]) {
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

function clampSize(n: number, max: number): number {
  return Number.isFinite(n) ? Math.max(1, Math.min(max, Math.floor(n))) : 24;
}

function childOf(ppid: number): number | undefined {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid) return Number(name);
    } catch {
      // exited meanwhile
    }
  }
  return undefined;
}

async function termOpen(term: string, token: string, colsIn: number, rowsIn: number): Promise<Msg> {
  const cols = clampSize(colsIn, 1000);
  const rows = clampSize(rowsIn, 1000);
  const env = { ...baseEnv, TERM: "xterm-256color" };
  const python = config.terminalBackend === "script" ? undefined : findPython();
  if (!python && config.terminalBackend === "python")
    throw new AgentError("UNAVAILABLE", "python3 not found");

  let child: ChildProcess;
  let pidPromise: Promise<number>;
  let exitCode: number | undefined;
  let resize: (cols: number, rows: number) => Promise<void>;
  let hup: () => void;

  if (python) {
    child = spawn(...limited(python, [PTY_HELPER, String(cols), String(rows), SHELL, "-l"]), {
      cwd: "/workspace",
      env,
      stdio: ["pipe", "pipe", "inherit", "pipe"],
    });
    const ctl = child.stdio[3] as unknown as Readable & Writable;
    const ctlLines = readline.createInterface({ input: ctl });
    pidPromise = new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", () => reject(new AgentError("UNAVAILABLE", "terminal helper exited")));
      ctlLines.on("line", (line) => {
        const [word, num] = line.split(" ");
        if (word === "pid") resolve(Number(num));
        if (word === "exit") exitCode = Number(num);
      });
    });
    resize = (c, r) =>
      new Promise<void>((resolve) => {
        ctl.write(`resize ${clampSize(c, 1000)} ${clampSize(r, 1000)}\n`, () => resolve());
      });
    hup = () => ctl.write("hup\n");
  } else {
    // `script` gives the shell a PTY; the initial size is set with stty before the
    // shell starts. -e: exit with the shell's status.
    const inner = `stty cols ${cols} rows ${rows} 2>/dev/null; exec ${SHELL} -l`;
    child = spawn(...limited("script", ["-qfec", inner, "/dev/null"]), {
      cwd: "/workspace",
      env,
      stdio: ["pipe", "pipe", "inherit"],
    });
    pidPromise = (async () => {
      for (let i = 0; i < 200; i++) {
        const pid = child.pid !== undefined ? childOf(child.pid) : undefined;
        if (pid) return pid;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new AgentError("UNAVAILABLE", "terminal did not start");
    })();
    let shellPid = 0;
    void pidPromise.then((p) => (shellPid = p)).catch(() => {});
    resize = (c, r) =>
      new Promise<void>((resolve) => {
        let tty: string;
        try {
          tty = fs.readlinkSync(`/proc/${shellPid}/fd/0`);
        } catch {
          return resolve(); // shell gone
        }
        if (!tty.startsWith("/dev/pts/")) return resolve();
        const args = ["-F", tty, "cols", String(clampSize(c, 1000)), "rows", String(clampSize(r, 1000))];
        const stty = spawn("stty", args, { stdio: "ignore" });
        stty.on("error", () => resolve());
        stty.on("close", () => resolve());
      });
    hup = () => {
      for (const sig of ["SIGHUP", "SIGCONT"] as const) {
        try {
          if (shellPid) process.kill(-shellPid, sig);
        } catch {
          // gone
        }
      }
    };
  }

  child.stdin!.on("error", () => {});
  let sock: net.Socket;
  let pid: number;
  try {
    [sock, pid] = await Promise.all([connectHost(token), pidPromise]);
  } catch (err) {
    child.kill("SIGKILL");
    throw err instanceof AgentError ? err : new AgentError("UNAVAILABLE", String(err));
  }
  child.stdout!.pipe(sock, { end: false });
  sock.pipe(child.stdin!);
  let killTimer: NodeJS.Timeout | undefined;
  terminals.set(term, {
    resize,
    kill: () => {
      hup();
      killTimer ??= setTimeout(() => child.kill("SIGKILL"), 2000);
    },
  });
  child.on("close", (code, signal) => {
    clearTimeout(killTimer);
    terminals.delete(term);
    const finalCode = exitCode ?? code ?? signalExitCode(signal);
    sock.end(() => send({ ev: "termExit", term, code: finalCode }));
    setTimeout(() => sock.destroy(), 1000);
  });
  return { pid };
}

// ---------------------------------------------------------------------------------------
// Desktop: TigerVNC's Xvnc, RFB on a unix socket inside the sandbox (relayed to the host
// on request) and on 127.0.0.1:5900 of the sandbox's own network namespace.

let desktopListening = false;

function setDesktopListening(v: boolean): void {
  if (desktopListening === v) return;
  desktopListening = v;
  send({ ev: "desktop", listening: v });
}

function probeRfb(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(RFB_SOCKET);
    s.once("error", () => resolve(false));
    s.once("data", (b) => {
      s.destroy();
      resolve(b.subarray(0, 4).toString() === "RFB ");
    });
    s.setTimeout(2000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

function startDesktop(attempt = 0): void {
  const display = Number(DESKTOP_DISPLAY.slice(1));
  // Stale state copied from a fork/snapshot parent would make Xvnc refuse to start.
  for (const stale of [`/tmp/.X${display}-lock`, `/tmp/.X11-unix/X${display}`, RFB_SOCKET]) {
    fs.rmSync(stale, { force: true });
  }
  fs.mkdirSync("/run/cws-desktop", { recursive: true, mode: 0o700 });
  fs.mkdirSync("/tmp/.X11-unix", { recursive: true, mode: 0o1777 });
  const xvnc = spawn(
    "Xvnc",
    [
      DESKTOP_DISPLAY,
      "-rfbunixpath",
      RFB_SOCKET,
      "-rfbunixmode",
      "0600",
      "-rfbport",
      String(RFB_TCP_PORT),
      "-localhost",
      "-SecurityTypes",
      "None",
      "-geometry",
      config.desktopGeometry,
      "-depth",
      "24",
      "-desktop",
      config.hostname,
      "-nolisten",
      "tcp",
      "-AlwaysShared",
    ],
    { cwd: "/root", env: baseEnv, stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let log = "";
  xvnc.stderr!.on("data", (b: Buffer) => {
    log = (log + b.toString()).slice(-4000);
  });
  let alive = true;
  xvnc.on("error", (e) => process.stderr.write(`cws-agent: cannot start Xvnc: ${e.message}\n`));
  xvnc.on("exit", (code, signal) => {
    alive = false;
    setDesktopListening(false);
    process.stderr.write(`cws-agent: Xvnc exited (${code ?? signal}); log tail:\n${log}\n`);
    if (attempt < 3) setTimeout(() => startDesktop(attempt + 1), 500 * (attempt + 1));
  });
  void (async () => {
    for (let i = 0; i < 300 && alive; i++) {
      if (fs.existsSync(RFB_SOCKET) && (await probeRfb())) {
        setDesktopListening(true);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
}

async function desktopConnect(token: string): Promise<Msg> {
  if (!config.desktop) throw new AgentError("NO_DESKTOP", "this sandbox has no desktop");
  const rfb = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(RFB_SOCKET);
    s.once("error", () => reject(new AgentError("UNAVAILABLE", "the desktop is not accepting connections")));
    s.once("connect", () => resolve(s));
  });
  let host: net.Socket;
  try {
    host = await connectHost(token);
  } catch (err) {
    rfb.destroy();
    throw new AgentError("UNAVAILABLE", String(err));
  }
  rfb.on("error", () => host.destroy());
  host.on("close", () => rfb.destroy());
  rfb.on("close", () => host.destroy());
  rfb.pipe(host);
  host.pipe(rfb);
  return {};
}

// ---------------------------------------------------------------------------------------

if (config.desktop) startDesktop();
send({ ev: "ready", pid: process.pid });
