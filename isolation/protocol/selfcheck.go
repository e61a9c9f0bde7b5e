package protocol

// Selfcheck is what the runner observed from inside its container; doctor
// compares each value with the policy. Values it could not read are -1 or
// empty, with the reason in Problems.
type Selfcheck struct {
	UID    int   `json:"uid"`
	GID    int   `json:"gid"`
	Groups []int `json:"groups"`
	// CapEff, NoNewPrivs and Seccomp are the /proc/self/status lines.
	CapEff     string `json:"cap_eff"`
	NoNewPrivs int    `json:"no_new_privs"`
	Seccomp    int    `json:"seccomp"`
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
	// TmpOptions are /tmp's mount options; TmpBytes its size.
	TmpOptions string `json:"tmp_options"`
	TmpBytes   int64  `json:"tmp_bytes"`
	// TmpMode is /tmp's permission bits in octal (limits.TmpMode): docker keeps
	// the mode of an image's own /tmp directory over the tmpfs, whatever
	// mode= says. TmpWritable is whether the runner could create a file
	// there as the sandbox user.
	TmpMode      string   `json:"tmp_mode"`
	TmpWritable  bool     `json:"tmp_writable"`
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
	// the "fd" directory, "environ", "oom_score_adj" for writing; 0: it
	// opened). The program shares the runner's uid, so only the runner
	// being non-dumpable keeps them closed.
	ProcProbes map[string]int `json:"proc_probes"`
	Problems   []string       `json:"problems,omitempty"`
	// TookMicros is how long the runner took to read all of the above.
	TookMicros int64 `json:"took_us"`
}

// ProcProbeFiles are the runner's /proc files named in ProcProbes, which
// the runner probes and the host judges: the one list of both.
var ProcProbeFiles = []string{"mem", "fd", "environ", "oom_score_adj"}
