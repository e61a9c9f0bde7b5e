package tests

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestRustRuns: the rust image compiles a hello once (rustc, gcc-12 its
// linker) and runs the binary; the image holds no shell, package manager,
// perl, cargo nor rustdoc, and of gcc's the driver alone (no cc1); rustc
// and its linker write nothing but the binary, in the working directory,
// and nothing is left in /tmp; the binary is stripped of the standard
// library's DWARF; the program's threads are held to the 64 tasks (a
// spawn past them fails, the program goes on); a panic is a program error
// named by its message, the panic hook's note in stderr.
func TestRustRuns(t *testing.T) {
	needKind(t, "rust")
	t.Parallel()
	r := compiledRun(t, "rust", "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"./main"`))
	assert.Check(t, is.Contains(r.stdout, `"compile":{"output":"","output_truncated":false`))

	r = compiledRun(t, "rust", `use std::fs;
use std::path::Path;
use std::time::Duration;

fn names(dir: &str) -> Vec<String> {
    let mut n: Vec<String> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    n.sort();
    n
}

fn tasks() -> usize {
    fs::read_dir("/proc/self/task").unwrap().count()
}

fn main() {
    let present: Vec<&str> = [
        "/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg", "/usr/bin/perl", "/usr/bin/cargo",
        "/usr/bin/rustdoc", "/usr/bin/cc", "/usr/bin/gcc-12", "/usr/bin/rustc", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
        "/usr/lib/gcc/aarch64-linux-gnu/12/cc1",
    ]
    .into_iter()
    .filter(|p| Path::new(p).exists())
    .collect();
    let before = tasks();
    let (mut started, mut refused) = (0, 0);
    let mut handles = Vec::new();
    for _ in 0..100 {
        match std::thread::Builder::new().spawn(|| std::thread::sleep(Duration::from_secs(2))) {
            Ok(h) => {
                started += 1;
                handles.push(h);
            }
            Err(_) => refused += 1,
        }
    }
    let during = tasks();
    for h in handles {
        h.join().unwrap();
    }
    println!("{}", [
        format!("present {}", present.join(" ")),
        format!("tmp {}", names("/tmp").join(" ")),
        format!("dir {}", names(".").join(" ")),
        format!("size {}", fs::metadata("main").unwrap().len()),
        format!("tasks {} {} {} {}", before, during, started, refused),
    ].join("\n"));
}
`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	rep := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.res.Output), "\n") {
		k, v, _ := strings.Cut(line, " ")
		rep[k] = v
	}
	assert.Check(t, is.Equal(rep["present"], "/usr/bin/gcc-12 /usr/bin/rustc"), "the compiler and its linker alone")
	assert.Check(t, is.Equal(rep["tmp"], "work"), "nothing rustc or ld made is left in /tmp")
	assert.Check(t, is.Equal(rep["dir"], "main main.rs"), "the binary alone beside the source")
	var size, before, during, started, refused int
	_, err := fmt.Sscan(rep["size"]+" "+rep["tasks"], &size, &before, &during, &started, &refused)
	assert.NilError(t, err, r.res.Output)
	assert.Check(t, size > 100<<10 && size < 2<<20, "stripped of the library's DWARF: %d bytes", size)
	assert.Check(t, is.Equal(before, 1), "one task: the main thread")
	// The runner and the program share the 64 tasks: the program gets
	// fewer than 64 threads, a spawn past them fails, and it goes on.
	assert.Check(t, started > 30 && started < 64 && refused > 0 && started+refused == 100,
		"threads: %d started, %d refused", started, refused)
	assert.Check(t, is.Equal(during, started+1))

	r = compiledRun(t, "rust", "fn f(a: i64) {\n    if a < 0 {\n        panic!(\"bad input {}\", a);\n    }\n}\n\nfn main() {\n    f(-1);\n}\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 101: thread 'main' panicked at 'bad input -1', main.rs:3:9"))
	assert.Check(t, is.Contains(r.res.Stderr, "\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"))
}

// TestRustCannotExecuteWhatItWrites: /tmp stays noexec under Rust. The
// program, started from a sealed memfd, copies its own binary into its
// working directory, marks it executable and fails to start it (EACCES),
// while the image's rustc, on the read-only root, starts.
func TestRustCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "rust")
	t.Parallel()
	r := compiledRun(t, "rust", `use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn main() {
    let me = fs::read("/proc/self/exe").unwrap();
    fs::write("copy", &me).unwrap();
    fs::set_permissions("copy", fs::Permissions::from_mode(0o755)).unwrap();
    match Command::new("./copy").status() {
        Ok(s) => println!("ran: {}", s),
        Err(e) => println!("{:?} {}", e.kind(), e),
    }
    let out = Command::new("rustc").arg("--version").output().unwrap();
    print!("{}", String::from_utf8_lossy(&out.stdout));
}
`)
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	first, rest, _ := strings.Cut(r.res.Output, "\n")
	assert.Check(t, is.Equal(first, "PermissionDenied Permission denied (os error 13)"))
	assert.Check(t, strings.HasPrefix(rest, "rustc 1.63.0"), rest)
}
