"""``gaitforge studio``: serves on loopback and prints the address, warns
when --host is given, and refuses a bad creature or port in one line."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "gaitforge.cli.main", "studio", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bad_creature_is_one_line():
    p = _cli("no_such_creature", "--port", str(_free_port()))
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2
    assert err.startswith("gaitforge: error: ") and err.count("\n") == 1 and "no_such_creature" in err


def test_bad_port_is_one_line():
    p = _cli("--port", "70000")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 2 and err == "gaitforge: error: --port must be from 1 to 65535, got 70000\n"


def _serve(*args):
    """Start the studio, wait (up to 120 s) until it has printed its address
    (it is then ready: the page may answer a moment before) and the page at
    the printed address answers, then Ctrl-C it: (url, stdout, stderr). The
    address printed is polled, not the one asked for: a port found free a
    moment before may be taken by another test process before the studio
    binds it, and the server then serves on the next free one."""
    import queue
    import re
    import threading

    port = _free_port()
    p = _cli("dog", "--port", str(port), *args)
    url = ""
    lines: list[str] = []
    # A thread reads stdout line by line: select() on the pipe cannot see
    # lines already pulled into the file object's buffer by an earlier read.
    received: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [received.put(line) for line in p.stdout], daemon=True)
    reader.start()
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and not any("in a browser" in line for line in lines):
            try:
                lines.append(received.get(timeout=0.3))
            except queue.Empty:
                if p.poll() is not None:
                    raise AssertionError(f"the studio stopped: {p.stderr.read()}") from None
        found = re.search(r"open (http://127\.0\.0\.1:\d+) in a browser", "".join(lines))
        assert found, lines
        url = found.group(1)
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    assert r.status == 200 and b"<html" in r.read(2000).lower()
                    break
            except OSError:
                time.sleep(0.3)
        else:
            raise AssertionError("the studio did not answer")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=30)
        finally:
            p.kill()  # a no-op once it has stopped
        err = p.stderr.read()
        reader.join(timeout=30)
    while not received.empty():
        lines.append(received.get())
    return url, "".join(lines), err


def test_serves_on_loopback_and_prints_the_address():
    url, out, err = _serve()
    assert f"gaitforge studio: open {url} in a browser" in out
    assert "warning" not in err


def test_host_prints_a_warning():
    _, out, err = _serve("--host", "127.0.0.1")
    assert "gaitforge: warning: serving on 127.0.0.1: anyone who can reach this address" in err
