"""PTY helper run inside a sandbox by the agent (agent.mts) for each terminal.

Usage: python3 pty_helper.py COLS ROWS SHELL [ARG...]

- Forks SHELL on a fresh pseudo-terminal (the child is a session leader with the
  PTY as its controlling terminal, window size COLS x ROWS).
- fd 0 (stdin)  -> raw bytes written to the PTY master (keyboard input).
- PTY master    -> raw bytes written to fd 1 (stdout).
- fd 3 is a line-based control channel (both directions):
    in:  "resize COLS ROWS"  set the window size (the kernel sends SIGWINCH)
         "hup"               SIGHUP then SIGKILL the shell's process group
    out: "pid PID"           once, right after the fork
         "exit CODE"         once, when the shell has exited (128+N for signal N)
The helper exits when the shell has exited and its output has been drained.
"""

import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def write_all(fd, data):
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        data = data[n:]


def main():
    cols, rows = int(sys.argv[1]), int(sys.argv[2])
    argv = sys.argv[3:]
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)

    # The initial size is set here, by the parent, before any resize it may be sent
    # (if the child set it, a resize could be overwritten by the child's initial size).
    try:
        set_size(master, cols, rows)
    except OSError:
        pass
    ctl = 3
    write_all(ctl, b"pid %d\n" % pid)
    os.set_blocking(master, False)
    pending_in = b""  # keyboard bytes not yet accepted by the PTY
    ctl_buf = b""
    stdin_open = True
    ctl_open = True
    exit_code = None
    exited_at = 0.0

    while True:
        if exit_code is None:
            try:
                wpid, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                wpid, status = pid, 0
            if wpid == pid:
                exit_code = os.waitstatus_to_exitcode(status)
                if exit_code < 0:
                    exit_code = 128 - exit_code
                exited_at = time.monotonic()
        if exit_code is not None and time.monotonic() - exited_at > 0.5:
            break
        rlist = [master]
        if stdin_open and not pending_in and exit_code is None:
            rlist.append(0)
        if ctl_open:
            rlist.append(ctl)
        wlist = [master] if pending_in and exit_code is None else []
        # While the shell runs, wake up regularly to notice its exit even when a
        # background job keeps the PTY open; once it has exited, drain briefly.
        timeout = 0.2 if exit_code is None else 0.05
        try:
            r, w, _ = select.select(rlist, wlist, [], timeout)
        except InterruptedError:
            continue
        if master in r:
            try:
                data = os.read(master, 65536)
            except BlockingIOError:
                data = None
            except OSError as e:  # EIO: every slave fd closed
                if e.errno != errno.EIO:
                    raise
                data = b""
            if data:
                write_all(1, data)
            elif data == b"":
                if exit_code is None:
                    try:
                        _, status = os.waitpid(pid, 0)
                        exit_code = os.waitstatus_to_exitcode(status)
                    except ChildProcessError:
                        exit_code = 0
                    if exit_code < 0:
                        exit_code = 128 - exit_code
                break
        elif exit_code is not None and not r:
            break
        if master in w and pending_in:
            try:
                n = os.write(master, pending_in)
                pending_in = pending_in[n:]
            except BlockingIOError:
                pass
            except OSError:
                pending_in = b""
        # Control before input: a resize sent before some input is applied first.
        if ctl in r:
            data = os.read(ctl, 4096)
            if not data:
                ctl_open = False
            ctl_buf += data
            while b"\n" in ctl_buf:
                line, ctl_buf = ctl_buf.split(b"\n", 1)
                parts = line.decode("ascii", "replace").split()
                if len(parts) == 3 and parts[0] == "resize":
                    try:
                        set_size(master, int(parts[1]), int(parts[2]))
                    except (OSError, ValueError):
                        pass
                elif parts and parts[0] == "hup" and exit_code is None:
                    for sig in (signal.SIGHUP, signal.SIGCONT):
                        try:
                            os.killpg(pid, sig)
                        except OSError:
                            pass
                    time.sleep(0.1)
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass

        if 0 in r:
            data = os.read(0, 65536)
            if data:
                pending_in += data
            else:
                stdin_open = False

    os.close(master)
    try:
        write_all(ctl, b"exit %d\n" % (exit_code if exit_code is not None else 0))
    except OSError:
        pass


if __name__ == "__main__":
    main()
