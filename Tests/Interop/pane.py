"""A terminal for the interop suite: one tmux pane, on a tmux server of its own (its own socket
name, so no other tmux session is ever touched), running one command; keys go in with
`send-keys` and the screen comes back with `capture-pane`.

    pane = Pane("ciaoint123-explore", host.argv(ciao, "explore"), workdir, width=80, height=24)
    pane.wait_for("_ciaotest._tcp", 10)
    pane.keys("Down", "Enter")
    pane.close()

The command runs inside `sh`, which records the terminal's settings (`stty -g`) before and
after it and its exit status, so a scenario can check the terminal was restored.
"""

from __future__ import annotations

import os
import subprocess
import time


class Pane:
    def __init__(self, socket: str, argv: list[str], workdir: str, width: int = 80, height: int = 24,
                 env: dict | None = None):
        self.socket = socket
        self.dir = os.path.join(workdir, socket)
        os.makedirs(self.dir, exist_ok=True)
        self.before = os.path.join(self.dir, "stty-before")
        self.after = os.path.join(self.dir, "stty-after")
        self.status = os.path.join(self.dir, "status")
        self.pidfile = os.path.join(self.dir, "pid")
        for path in (self.after, self.status, self.pidfile):
            if os.path.exists(path):
                os.remove(path)
        exports = " ".join(f"{k}={quote(v)}" for k, v in (env or {}).items())
        inner = f"echo $$ > {quote(self.pidfile)}; exec env {exports} {' '.join(map(quote, argv))}"
        script = (f"stty -g > {quote(self.before)}; echo explore-start; sh -c {quote(inner)}; "
                  f"echo $? > {quote(self.status)}; stty -g > {quote(self.after)}; echo explore-end; exec sleep 600")
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "pane", "sh", "-c", script)

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True,
                              text=True, timeout=10, check=True).stdout

    def keys(self, *keys: str) -> None:
        """tmux key names (`Down`, `Enter`, `Escape`, `Tab`, `BSpace`, `C-c`) or single characters."""
        for key in keys:
            self.tmux("send-keys", "-t", "pane", key)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        """`text` typed literally."""
        self.tmux("send-keys", "-t", "pane", "-l", text)
        time.sleep(0.1)

    def pipe_in(self, command: str) -> None:
        """What `command` (run by the tmux server) writes goes to the pane as typed input, until
        the pane closes."""
        self.tmux("pipe-pane", "-I", "-t", "pane", command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "pane")

    def wait_for(self, what, timeout: float) -> str:
        """The screen once `what` (text, or a predicate on the screen) holds; Failure on timeout."""
        from lab import Failure
        test = (lambda s: what in s) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise Failure(f"pane {self.socket}: no {what!r} within {timeout:g} s; screen:\n{screen}")
            time.sleep(0.1)

    def pid(self, timeout: float = 5) -> int:
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.pidfile) or not open(self.pidfile).read().strip():
            if time.monotonic() > deadline:
                raise RuntimeError("the pane's command never started")
            time.sleep(0.05)
        return int(open(self.pidfile).read())

    def exit_status(self, timeout: float) -> int | None:
        """The command's exit status once it has ended, None if it has not within `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.after) and open(self.after).read().strip():
                return int(open(self.status).read())
            time.sleep(0.1)
        return None

    def restored(self) -> bool:
        """The terminal's settings after the command are those before it."""
        return open(self.before).read() == open(self.after).read()

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
