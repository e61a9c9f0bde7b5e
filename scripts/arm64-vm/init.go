//go:build ignore

// The /init (PID 1) of the arm64 Docker VM that scripts/arm64-vm.sh boots
// under qemu-system-aarch64. The build tag keeps it out of `go build ./...`
// and `go vet ./...`: the script builds it alone, with GOARCH=arm64
// CGO_ENABLED=0, so it is static and needs nothing from the guest's root.
//
// It does what systemd and docker.service would, and no more: leave the
// initramfs root (runc's pivot_root refuses it), mount the kernel file
// systems with cgroup v2, load the modules listed in /etc/vm-modules, bring
// up lo and eth0 for qemu's user network, then run dockerd (which starts its
// own containerd) and reap orphans. When dockerd exits it powers the VM off,
// so the script sees qemu gone rather than waiting for its timeout.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func logf(format string, args ...any) {
	fmt.Printf("init: "+format+"\n", args...)
}

func mount(src, dst, fstype string, flags uintptr, data string) {
	os.MkdirAll(dst, 0o755)
	if err := syscall.Mount(src, dst, fstype, flags, data); err != nil {
		logf("mount %s on %s: %s", fstype, dst, err)
	}
}

// leaveRootfs puts a bind mount of the initramfs over / and chroots into it:
// pivot_root (runc's way into a container's root) fails with EINVAL while
// the caller's root is the initial rootfs, and a bind mount is not it.
// This is switch_root without copying anything.
func leaveRootfs() {
	os.Mkdir("/.root", 0o755)
	if err := syscall.Mount("/", "/.root", "", syscall.MS_BIND, ""); err != nil {
		logf("bind /: %s", err)
		return
	}
	syscall.Chdir("/.root")
	if err := syscall.Mount(".", "/", "", syscall.MS_MOVE, ""); err != nil {
		logf("move /: %s", err)
	}
	syscall.Chroot(".")
	syscall.Chdir("/")
}

// loadModules loads the module files named in list, each after the modules
// its .modinfo depends= names (they are in the list too).
func loadModules(list string) {
	b, _ := os.ReadFile(list)
	paths := map[string]string{}
	for _, p := range strings.Fields(string(b)) {
		paths[modName(p)] = p
	}
	done := map[string]bool{}
	var load func(name string)
	load = func(name string) {
		if done[name] {
			return
		}
		done[name] = true
		img, err := os.ReadFile(paths[name])
		if err != nil {
			logf("module %s: %s", name, err)
			return
		}
		if i := bytes.Index(img, []byte("\x00depends=")); i >= 0 {
			deps := img[i+9:]
			deps = deps[:bytes.IndexByte(deps, 0)]
			for _, d := range strings.Split(string(deps), ",") {
				if d != "" {
					load(modName(d))
				}
			}
		}
		f, err := os.Open(paths[name])
		if err != nil {
			logf("module %s: %s", name, err)
			return
		}
		defer f.Close()
		params := []byte{0}
		_, _, e := syscall.Syscall(syscall.SYS_FINIT_MODULE, f.Fd(), uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 && e != syscall.EEXIST {
			logf("module %s: %v", name, e)
		}
	}
	for name := range paths {
		load(name)
	}
}

// modName is a module's name from its path or its name: - and _ are one.
func modName(p string) string {
	p = p[strings.LastIndexByte(p, '/')+1:]
	return strings.ReplaceAll(strings.TrimSuffix(p, ".ko"), "-", "_")
}

// ifreq is struct ifreq: a name, then a sockaddr_in or the flags.
type ifreq struct {
	name [16]byte
	data [24]byte
}

func ioctl(fd int, req uintptr, ifr *ifreq) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(ifr))); e != 0 {
		return e
	}
	return nil
}

// ifup sets addr/mask on the interface (when addr is not nil) and brings it up.
func ifup(name string, addr, mask []byte) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		logf("socket: %s", err)
		return
	}
	defer syscall.Close(fd)
	req := func() *ifreq { r := &ifreq{}; copy(r.name[:], name); return r }
	sin := func(ip []byte) *ifreq {
		r := req()
		r.data[0] = syscall.AF_INET // sa_family, little endian
		copy(r.data[4:8], ip)
		return r
	}
	if addr != nil {
		if err := ioctl(fd, syscall.SIOCSIFADDR, sin(addr)); err != nil {
			logf("%s address: %s", name, err)
		}
		if err := ioctl(fd, syscall.SIOCSIFNETMASK, sin(mask)); err != nil {
			logf("%s netmask: %s", name, err)
		}
	}
	r := req()
	r.data[0] = syscall.IFF_UP
	if err := ioctl(fd, syscall.SIOCSIFFLAGS, r); err != nil {
		logf("%s up: %s", name, err)
	}
}

// daemonCgroup makes the cgroup dockerd starts in, as systemd would make
// docker.service: Docker 20.10 sees swap limit support only when its own
// cgroup has memory.swap.max, which the root cgroup never has. Every
// controller is enabled below the root, for it and for the containers.
func daemonCgroup() (int, error) {
	b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	if err != nil {
		return -1, err
	}
	var enable []string
	for _, c := range strings.Fields(string(b)) {
		enable = append(enable, "+"+c)
	}
	if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte(strings.Join(enable, " ")), 0o644); err != nil {
		return -1, err
	}
	if err := os.Mkdir("/sys/fs/cgroup/dockerd", 0o755); err != nil {
		return -1, err
	}
	return syscall.Open("/sys/fs/cgroup/dockerd", syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
}

func main() {
	leaveRootfs()
	const nosuid, nodev, noexec = syscall.MS_NOSUID, syscall.MS_NODEV, syscall.MS_NOEXEC
	mount("proc", "/proc", "proc", nosuid|nodev|noexec, "")
	mount("sysfs", "/sys", "sysfs", nosuid|nodev|noexec, "")
	mount("devtmpfs", "/dev", "devtmpfs", nosuid, "mode=0755")
	mount("devpts", "/dev/pts", "devpts", nosuid|noexec, "gid=5,mode=620,ptmxmode=666")
	mount("tmpfs", "/dev/shm", "tmpfs", nosuid|nodev, "mode=1777")
	mount("mqueue", "/dev/mqueue", "mqueue", nosuid|nodev|noexec, "")
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", nosuid|nodev|noexec, "nsdelegate,memory_recursiveprot")
	mount("securityfs", "/sys/kernel/security", "securityfs", nosuid|nodev|noexec, "")
	mount("tmpfs", "/run", "tmpfs", nosuid|nodev, "mode=0755")
	mount("tmpfs", "/tmp", "tmpfs", nosuid|nodev, "mode=1777")
	// Docker's images and containers: overlay2 works on tmpfs.
	mount("tmpfs", "/var/lib/docker", "tmpfs", 0, "mode=0710")
	os.Symlink("/proc/self/fd", "/dev/fd")
	os.Symlink("/run", "/var/run")
	syscall.Sethostname([]byte("arm64-vm"))

	loadModules("/etc/vm-modules")
	ifup("lo", nil, nil)
	for i := 0; i < 100; i++ { // virtio-net binds as virtio_pci probes
		if _, err := os.Stat("/sys/class/net/eth0"); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	ifup("eth0", []byte{10, 0, 2, 15}, []byte{255, 255, 255, 0})

	// As docker.service: LimitNOFILE=infinity (the kernel's nr_open).
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20})
	os.Setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	os.Setenv("HOME", "/root")
	args := []string{"-H", "unix:///run/docker.sock", "-H", "tcp://0.0.0.0:2375"}
	if b, err := os.ReadFile("/etc/dockerd-args"); err == nil {
		args = append(args, strings.Fields(string(b))...)
	}
	logf("starting dockerd %s", strings.Join(args, " "))
	cmd := exec.Command("/usr/sbin/dockerd", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if fd, err := daemonCgroup(); err == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	} else {
		logf("dockerd's cgroup: %s", err)
	}
	if err := cmd.Start(); err != nil {
		logf("dockerd: %s", err)
	}
	for { // PID 1 reaps every orphan; dockerd's end is the VM's.
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.ECHILD || (cmd.Process != nil && pid == cmd.Process.Pid) {
			logf("dockerd exited; powering off")
			syscall.Sync()
			syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
		}
	}
}
