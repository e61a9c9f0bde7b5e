// Package hello is the runner's first frame, its hello: its protocol
// version and what it observed of its sandbox (Selfcheck), written before
// it read anything from stdin, so before any program could exist in the
// container. The host judges it against the policy before it sends the
// request.
package hello

// Frame is the hello line: the runner's protocol version
// (protocol.Version) and its attestation.
type Frame struct {
	V         int        `json:"v"`
	Selfcheck *Selfcheck `json:"selfcheck"`
}

// Selfcheck is what the runner observed from inside its container; doctor
// compares each value with the policy. Values it could not read are -1 or
// empty, with the reason in Problems.
type Selfcheck struct {
	// KernelRelease and KernelVersion are uname's: they say which kernel
	// the runner sees, the host's (runc) or gVisor's sentry (GVisor).
	KernelRelease string `json:"kernel_release"`
	KernelVersion string `json:"kernel_version"`
	UID           int    `json:"uid"`
	GID           int    `json:"gid"`
	Groups        []int  `json:"groups"`
	// CapEff, NoNewPrivs and Seccomp are the /proc/self/status lines.
	CapEff     string `json:"cap_eff"`
	NoNewPrivs int    `json:"no_new_privs"`
	Seccomp    int    `json:"seccomp"`
	// NoNewPrivsPrctl is prctl(PR_GET_NO_NEW_PRIVS), -1 if it failed:
	// gVisor sets the bit but prints no NoNewPrivs status line.
	NoNewPrivsPrctl int `json:"no_new_privs_prctl"`
	// SeccompBy says who installed the filter in force: SeccompByEngine
	// (it was there when the runner started), SeccompByRunner (there was
	// none, as under gVisor, which ignores the OCI profile, and the runner
	// installed the policy's own before anything else), or "" (none).
	SeccompBy string `json:"seccomp_by"`
	// CgroupVersion is 1 or 2; the limits below are normalized across both.
	CgroupVersion int `json:"cgroup_version"`
	// MemoryMax is the memory limit in bytes, -1 for none.
	MemoryMax int64 `json:"memory_max"`
	// SwapMax is the swap the container may use beyond MemoryMax, -1 for none.
	SwapMax int64 `json:"swap_max"`
	PidsMax int64 `json:"pids_max"`
	// CPUMax is "quota period" in microseconds, as cgroup v2 cpu.max shows it.
	CPUMax string `json:"cpu_max"`
	// CPUCounter is whether the cgroup's CPU-time counter could be read:
	// a program's cpu_us comes from it, and a CPU-time limit needs it.
	CPUCounter bool  `json:"cpu_counter"`
	NoFileSoft int64 `json:"nofile_soft"`
	NoFileHard int64 `json:"nofile_hard"`
	CoreSoft   int64 `json:"core_soft"`
	CoreHard   int64 `json:"core_hard"`
	// NProcSoft and NProcHard are RLIMIT_NPROC: gVisor enforces it for
	// the whole sandbox, where its own threads fill the host's pids cgroup.
	NProcSoft int64 `json:"nproc_soft"`
	NProcHard int64 `json:"nproc_hard"`
	// TmpOptions are /tmp's mount options; TmpBytes its size.
	TmpOptions string `json:"tmp_options"`
	TmpBytes   int64  `json:"tmp_bytes"`
	// TmpMode is /tmp's permission bits in octal (limits.TmpMode): docker keeps
	// the mode of an image's own /tmp directory over the tmpfs, whatever
	// mode= says. TmpWritable is whether the runner could create a file
	// there as the sandbox user.
	TmpMode     string `json:"tmp_mode"`
	TmpWritable bool   `json:"tmp_writable"`
	// TmpMknod is the errno mknod(2) of a character device in /tmp got (0:
	// it was made, and removed): gVisor prints no nodev option, so the
	// hello shows by behaviour that no device can be made there.
	TmpMknod     int      `json:"tmp_mknod"`
	RootReadOnly bool     `json:"root_read_only"`
	Interfaces   []string `json:"interfaces"`
	// DevShmWritable is whether a file could be created in /dev/shm.
	DevShmWritable bool     `json:"dev_shm_writable"`
	DockerSocket   bool     `json:"docker_socket"`
	EnvKeys        []string `json:"env_keys"`
	// SyscallProbes is the errno each syscall the policy's seccomp profile
	// refuses got when the runner called it harmlessly (0: it succeeded).
	SyscallProbes map[string]int `json:"syscall_probes"`
	// ProcProbes is the errno a throwaway child of the runner got opening
	// the runner's own /proc files as the program would ("mem" read-write,
	// "fd/0", its standard input, "environ", "oom_score_adj" for writing;
	// 0: it opened). An entry, not the fd directory: gVisor lets any
	// process list another's descriptor numbers, and guards the entries. The program shares the runner's uid, so only the runner
	// being non-dumpable keeps them closed.
	ProcProbes map[string]int `json:"proc_probes"`
	Problems   []string       `json:"problems,omitempty"`
	// TookMicros is how long the runner took to read all of the above.
	TookMicros int64 `json:"took_us"`
}

// ProcProbeFiles are the runner's /proc files named in ProcProbes, which
// the runner probes and the host judges: the one list of both.
var ProcProbeFiles = []string{"mem", "fd/0", "environ", "oom_score_adj"}

// Who installed the seccomp filter in force (Selfcheck.SeccompBy).
const (
	SeccompByEngine = "engine"
	SeccompByRunner = "runner"
)

// GVisorKernelVersion is the uname version gVisor's sentry reports, the
// same in every release (Debian's 20221219 and current ones alike).
const GVisorKernelVersion = "#1 SMP Sun Jan 10 15:06:54 PST 2016"

// GVisor reports whether the runner that wrote s saw gVisor's kernel.
func (s Selfcheck) GVisor() bool { return s.KernelVersion == GVisorKernelVersion }
