# The boundary probe in Python: each check really tries to cross one
# boundary from inside the sandbox and reports what happened, as one JSON
# object on stdout. Run through `run --image PY -- python3 -`; the first
# line of the source is replaced by `GATEWAY = "<host's docker0 address>"`.
GATEWAY = "172.17.0.1"

import errno
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import time

report = {}


def err_name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) else type(e).__name__


def attempt(key, fn):
    try:
        fn()
        report[key] = "allowed"
    except Exception as e:  # the error is the observation
        report[key] = err_name(e)


def status():
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.strip()
    return fields


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return err_name(e)


attempt("write_root", lambda: open("/probe-file", "w"))
attempt("write_usr", lambda: open("/usr/bin/probe-file", "w"))
attempt("setuid0", lambda: os.setuid(0))
st = status()
report["uid"], report["gid"] = os.getuid(), os.getgid()
report["cap_eff"], report["no_new_privs"], report["seccomp"] = st["CapEff"], st["NoNewPrivs"], st["Seccomp"]

# /tmp: writable, 32 MiB, and nothing in it can be executed.
vfs = os.statvfs("/tmp")
report["tmp_bytes"] = vfs.f_blocks * vfs.f_frsize
with open("/tmp/probe", "w") as f:
    f.write("x")
report["tmp_writable"] = True
shutil.copy("/usr/bin/python3.11", "/tmp/py")
os.chmod("/tmp/py", 0o755)
attempt("tmp_exec", lambda: subprocess.run(["/tmp/py", "-c", "pass"], check=True))
os.remove("/tmp/py")

def fill_tmp():
    with open("/tmp/fill", "wb") as f:
        while True:
            f.write(b"\0" * (1 << 20))
            f.flush()

attempt("tmp_fill", fill_tmp)
os.remove("/tmp/fill")

report["interfaces"] = sorted(os.listdir("/sys/class/net"))

def connect():
    s = socket.socket()
    s.settimeout(2)
    s.connect((GATEWAY, 80))

attempt("connect", connect)
report["env_keys"] = sorted(os.environ)
report["docker_sock"] = os.path.exists("/var/run/docker.sock") or os.path.exists("/run/docker.sock")
attempt("dev_shm", lambda: open("/dev/shm/probe", "w"))
report["nofile"] = list(resource.getrlimit(resource.RLIMIT_NOFILE))
report["core"] = list(resource.getrlimit(resource.RLIMIT_CORE))

files = []
try:
    while True:
        files.append(open("/dev/null"))
except OSError as e:
    report["open_files_error"] = err_name(e)
report["open_files_max_fd"] = max(f.fileno() for f in files)
for f in files:
    f.close()

if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
    report["memory_max"] = read("/sys/fs/cgroup/memory.max")
    report["swap_max"] = read("/sys/fs/cgroup/memory.swap.max")
    report["pids_max"] = read("/sys/fs/cgroup/pids.max")
    report["cpu_max"] = read("/sys/fs/cgroup/cpu.max")
else:
    mem = int(read("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
    report["memory_max"] = str(mem)
    report["swap_max"] = str(int(read("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes")) - mem)
    report["pids_max"] = read("/sys/fs/cgroup/pids/pids.max")
    report["cpu_max"] = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") + " " + read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")

# Fork until the pids limit says no; every child waits to be killed.
children = []
try:
    while len(children) < 1000:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
except OSError as e:
    report["fork_error"] = err_name(e)
report["forked"] = len(children)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)

print(json.dumps(report, sort_keys=True))
