package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
)

// controlFD is where a preloaded interpreter reads its program: a unix
// socket on which the runner sends the program's argv and, as an
// SCM_RIGHTS descriptor, its standard input.
const controlFD = 4

// bootstrap is the Python a preloaded interpreter runs in place of the
// program ("python3 -c bootstrap MODULE..."): it imports the modules,
// waits for the program, then runs it as "python3 PATH ARGS..." would, in
// a fresh __main__ module, in the program's directory, on its stdin. An
// exception is reported as the interpreter reports it, without this
// bootstrap's frame, and ends it with status 1; SystemExit is the
// program's own. Its names start with an underscore and live in the
// bootstrap's module, never in the program's.
const bootstrap = `import os, socket, sys
for _m in sys.argv[1:]:
    __import__(_m)
_s = socket.socket(fileno=%d)
_msg, _fds, _, _ = socket.recv_fds(_s, 1 << 16, 1)
_s.close()
if not _fds:
    os._exit(0)
os.dup2(_fds[0], 0)
os.close(_fds[0])
sys.argv[:] = _msg.decode().split("\0")
_path = sys.argv[0]
os.chdir(os.path.dirname(_path))
if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
    sys.path[0] = os.path.dirname(_path)
import types as _types
_main = _types.ModuleType("__main__")
_main.__dict__.update(__file__=_path, __builtins__=__builtins__, __cached__=None)
sys.modules["__main__"] = _main
del _m, _s, _msg, _fds, _types
try:
    with open(_path, "rb") as _f:
        _code = compile(_f.read(), _path, "exec")
except SyntaxError as _e:
    sys.excepthook(type(_e), _e.with_traceback(None), None)
    sys.exit(1)
try:
    exec(_code, _main.__dict__)
except SystemExit:
    raise
except BaseException as _e:
    _e = _e.with_traceback(_e.__traceback__.tb_next)
    sys.excepthook(type(_e), _e, _e.__traceback__)
    sys.exit(1)
`

// preloaded is an interpreter started once the host judged the hello,
// with the image's modules imported, waiting for its program.
type preloaded struct {
	child          *child
	control        *os.File // the runner's end of the control socket
	stdout, stderr *capture.Stream
}

// startPreload starts argv's interpreter (a Python reading its program
// from "-", which runargs.CheckPreload holds to) through the trampoline,
// as execute would, running bootstrap with modules. nil, with the reason,
// when it cannot: the request then starts its interpreter cold, as any
// run does.
func startPreload(argv, modules []string, threads int, cg cgroup) (*preloaded, error) {
	dash := slices.Index(argv, "-")
	boot := append(append(slices.Clone(argv[:dash]), "-c", fmt.Sprintf(bootstrap, controlFD)), modules...)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	control, theirs := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	defer theirs.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		control.Close()
		return nil, err
	}
	defer null.Close()
	p := &preloaded{control: control}
	var failed *protocol.Response
	// theirs becomes the interpreter's controlFD, the first after statusFD.
	if p.child, p.stdout, p.stderr, failed = startInterpreter(startSpec{argv: boot, dir: os.TempDir(), stdin: null, threads: threads, extra: []*os.File{theirs}}, cg); failed != nil {
		control.Close()
		return nil, errors.New(failed.Error.Message)
	}
	return p, nil
}

// hand gives the waiting interpreter its program: its argv from the
// source's path on (programArgv's, past the interpreter's own options) and
// its stdin. An error means it is gone (an import failed, or it was
// killed): the caller aborts it and starts the program cold.
func (p *preloaded) hand(program []string, stdin *os.File) error {
	defer p.control.Close()
	msg := []byte(strings.Join(program, "\x00"))
	// MSG_NOSIGNAL: an interpreter gone is an error here, never a SIGPIPE.
	err := syscall.Sendmsg(int(p.control.Fd()), msg, syscall.UnixRights(int(stdin.Fd())), nil, syscall.MSG_NOSIGNAL)
	if err != nil {
		return fmt.Errorf("handing the program to the preloaded interpreter: %w", err)
	}
	return nil
}

// abort ends an interpreter that will run no program.
func (p *preloaded) abort() {
	p.control.Close()
	p.child.abort()
}

// awaitReady reads the host's word that the hello passed: one newline,
// within idle (a container nobody sends work to ends on its own).
func awaitReady(stdin io.Reader, idle time.Duration) error {
	got := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := io.ReadFull(stdin, b[:])
		if err == nil && b[0] != '\n' {
			err = fmt.Errorf("want a newline, got %q", b[0])
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			return fmt.Errorf("request: the host's word that the hello passed: %w", err)
		}
		return nil
	case <-time.After(idle):
		return fmt.Errorf("request: none within %s", idle)
	}
}

// handOver gives the interpreter to serve, nil when there is none; the
// deferred abortUnused then leaves it alone.
func (p *preloaded) handOver() *preloaded {
	if p == nil {
		return nil
	}
	q := *p
	p.child = nil
	return &q
}

// abortUnused ends an interpreter that was never handed over.
func (p *preloaded) abortUnused() {
	if p != nil && p.child != nil {
		p.abort()
	}
}
