# What ordinary Python programs do, each step checked, reported as one JSON
# object on stdout: the seccomp profile must serve all of it. Run through
# `run --image PY -- python3 -`.
import json
import mmap
import os
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading

report = {}


def step(key, fn):
    try:
        report[key] = fn()
    except Exception as e:  # the failure is the observation
        report[key] = "failed: %s: %s" % (type(e).__name__, e)


def threads():
    out = []
    ts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sorted(out) == list(range(8))


def fork_and_wait():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status) == 7


def subprocess_run():
    r = subprocess.run([sys.executable, "-c", "print(6*7)"], capture_output=True, text=True, timeout=20)
    return r.stdout.strip() == "42"


def socketpair_select():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"ping")
        r, _, _ = select.select([b], [], [], 5)
        return r == [b] and b.recv(4) == b"ping"


def anonymous_mmap():
    m = mmap.mmap(-1, 1 << 20)
    m[:5] = b"hello"
    ok = m[:5] == b"hello"
    m.close()
    return ok


def sqlite_in_tmp():
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        db = sqlite3.connect(os.path.join(d, "t.db"))
        db.execute("create table t (x integer)")
        db.executemany("insert into t values (?)", [(i,) for i in range(100)])
        db.commit()
        (n,) = db.execute("select sum(x) from t").fetchone()
        db.close()
        mem = sqlite3.connect(":memory:")
        (m,) = mem.execute("select 1 + 1").fetchone()
        return n == 4950 and m == 2


def tempfile_in_tmp():
    with tempfile.NamedTemporaryFile(dir="/tmp") as f:
        f.write(b"x" * 4096)
        f.flush()
        f.seek(0)
        return len(f.read()) == 4096


for name, fn in [
    ("threads", threads),
    ("fork_and_wait", fork_and_wait),
    ("subprocess", subprocess_run),
    ("socketpair_select", socketpair_select),
    ("mmap", anonymous_mmap),
    ("sqlite3", sqlite_in_tmp),
    ("tempfile", tempfile_in_tmp),
]:
    step(name, fn)
print(json.dumps(report, sort_keys=True))
