# Everyday Python that a sandbox must not break: each step prints True, or
# the error it raised. Run as the program, through `run -- python3 -`.
import json
import os
import sys
import tempfile

results = {}


def step(name):
    def wrap(f):
        try:
            got = f()
            results[name] = True if got is None else got
        except BaseException as e:  # report, never stop
            results[name] = "%s: %s" % (type(e).__name__, e)
        return f
    return wrap


work = tempfile.mkdtemp(dir="/tmp")


def path(name):
    return os.path.join(work, name)


def touch(name, data=b"x"):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


@step("os.rename")
def _():
    os.rename(touch("a"), path("b"))


@step("os.replace")
def _():
    os.replace(touch("c"), path("b"))


@step("shutil.move")
def _():
    import shutil
    shutil.move(touch("d"), path("e"))


@step("Path.rename")
def _():
    import pathlib
    pathlib.Path(touch("f")).rename(path("g"))


@step("atomic write")
def _():
    fd, tmp = tempfile.mkstemp(dir=work)
    with os.fdopen(fd, "w") as f:
        f.write("new")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path("config"))


@step("os.uname")
def _():
    assert os.uname().sysname == "Linux"


@step("platform")
def _():
    import platform
    assert platform.system() == "Linux"
    assert platform.platform()


@step("uuid")
def _():
    import uuid
    assert uuid.uuid4().version == 4


@step("asyncio.run")
def _():
    import asyncio

    async def main():
        await asyncio.sleep(0.01)
        r, w = await asyncio.open_connection(*server[0])
        w.write(b"ping\n")
        await w.drain()
        line = await r.readline()
        w.close()
        await w.wait_closed()
        return line

    async def serve():
        async def echo(r, w):
            w.write(await r.readline())
            await w.drain()
            w.close()
        srv = await asyncio.start_server(echo, "127.0.0.1", 0)
        server.append(srv.sockets[0].getsockname())
        async with srv:
            return await main()

    server = []
    assert asyncio.run(serve()) == b"ping\n"


@step("os.chdir")
def _():
    here = os.getcwd()
    os.chdir(work)
    os.chdir(here)


@step("os.fsync")
def _():
    with open(touch("h"), "wb") as f:
        os.fsync(f.fileno())


@step("fcntl.flock")
def _():
    import fcntl
    with open(touch("lock"), "wb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        fcntl.flock(f, fcntl.LOCK_UN)


@step("socket.gethostname")
def _():
    import socket
    assert socket.gethostname()


@step("loopback server")
def _():
    import socket
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    c = socket.create_connection(srv.getsockname())
    s, _ = srv.accept()
    c.sendall(b"hi")
    assert s.recv(2) == b"hi"
    for x in (c, s, srv):
        x.close()


@step("os.link")
def _():
    os.link(touch("i"), path("i2"))


@step("os.symlink")
def _():
    os.symlink(touch("j"), path("j2"))
    assert os.readlink(path("j2")) == path("j")


@step("os.utime")
def _():
    os.utime(touch("k"), (1, 2))
    assert os.stat(path("k")).st_mtime == 2


@step("os.truncate")
def _():
    os.truncate(touch("l", b"12345"), 2)
    assert os.path.getsize(path("l")) == 2


@step("os.mkfifo")
def _():
    os.mkfifo(path("fifo"))


@step("signal.setitimer")
def _():
    import signal
    import time
    fired = []
    signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    time.sleep(0.2)
    assert fired


@step("time.thread_time")
def _():
    import time
    assert time.thread_time() >= 0


@step("os.nice")
def _():
    os.nice(1)


@step("os.getpriority")
def _():
    os.getpriority(os.PRIO_PROCESS, 0)


@step("chown own file")
def _():
    os.chown(touch("m"), os.getuid(), os.getgid())


@step("os.getppid")
def _():
    return os.getppid()


@step("os.umask")
def _():
    old = os.umask(0o022)
    os.umask(old)
    return oct(old)


@step("getpass.getuser")
def _():
    import getpass
    return getpass.getuser()


@step("pwd.getpwuid")
def _():
    import pwd
    return pwd.getpwuid(65534).pw_name


@step("grp.getgrgid")
def _():
    import grp
    return grp.getgrgid(65534).gr_name


@step("zoneinfo")
def _():
    import datetime
    import zoneinfo
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    return datetime.datetime(2026, 7, 1, 12, tzinfo=paris).utcoffset().seconds


json.dump(results, sys.stdout, sort_keys=True)
print()
