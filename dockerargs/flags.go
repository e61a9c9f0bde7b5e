package dockerargs

// flagKind says whether a `docker run` flag takes a value.
type flagKind int

const (
	boolFlag flagKind = iota
	valueFlag
)

// runFlags lists every `docker run` flag by its canonical long name, with
// the aliases docker accepts. Audit refuses flags it does not know, so a
// flag added by a later docker release is reported rather than ignored.
var runFlags = map[string]flagKind{
	"add-host": valueFlag, "annotation": valueFlag, "attach": valueFlag, "blkio-weight": valueFlag,
	"blkio-weight-device": valueFlag, "cap-add": valueFlag, "cap-drop": valueFlag, "cgroup-parent": valueFlag,
	"cgroupns": valueFlag, "cidfile": valueFlag, "cpu-count": valueFlag, "cpu-percent": valueFlag,
	"cpu-period": valueFlag, "cpu-quota": valueFlag, "cpu-rt-period": valueFlag, "cpu-rt-runtime": valueFlag,
	"cpu-shares": valueFlag, "cpus": valueFlag, "cpuset-cpus": valueFlag, "cpuset-mems": valueFlag,
	"detach": boolFlag, "detach-keys": valueFlag, "device": valueFlag, "device-cgroup-rule": valueFlag,
	"device-read-bps": valueFlag, "device-read-iops": valueFlag, "device-write-bps": valueFlag,
	"device-write-iops": valueFlag, "disable-content-trust": boolFlag, "dns": valueFlag, "dns-option": valueFlag,
	"dns-search": valueFlag, "domainname": valueFlag, "entrypoint": valueFlag, "env": valueFlag,
	"env-file": valueFlag, "expose": valueFlag, "gpus": valueFlag, "group-add": valueFlag,
	"health-cmd": valueFlag, "health-interval": valueFlag, "health-retries": valueFlag,
	"health-start-interval": valueFlag, "health-start-period": valueFlag, "health-timeout": valueFlag,
	"help": boolFlag, "hostname": valueFlag, "init": boolFlag, "interactive": boolFlag, "io-maxbandwidth": valueFlag,
	"io-maxiops": valueFlag, "ip": valueFlag, "ip6": valueFlag, "ipc": valueFlag, "isolation": valueFlag,
	"kernel-memory": valueFlag, "label": valueFlag, "label-file": valueFlag, "link": valueFlag,
	"link-local-ip": valueFlag, "log-driver": valueFlag, "log-opt": valueFlag, "mac-address": valueFlag,
	"memory": valueFlag, "memory-reservation": valueFlag, "memory-swap": valueFlag, "memory-swappiness": valueFlag,
	"mount": valueFlag, "name": valueFlag, "network": valueFlag, "network-alias": valueFlag,
	"no-healthcheck": boolFlag, "oom-kill-disable": boolFlag, "oom-score-adj": valueFlag, "pid": valueFlag,
	"pids-limit": valueFlag, "platform": valueFlag, "privileged": boolFlag, "publish": valueFlag,
	"publish-all": boolFlag, "pull": valueFlag, "quiet": boolFlag, "read-only": boolFlag, "restart": valueFlag,
	"rm": boolFlag, "runtime": valueFlag, "security-opt": valueFlag, "shm-size": valueFlag, "sig-proxy": boolFlag,
	"stop-signal": valueFlag, "stop-timeout": valueFlag, "storage-opt": valueFlag, "sysctl": valueFlag,
	"tmpfs": valueFlag, "tty": boolFlag, "ulimit": valueFlag, "use-api-socket": boolFlag, "user": valueFlag,
	"userns": valueFlag, "uts": valueFlag, "volume": valueFlag, "volume-driver": valueFlag,
	"volumes-from": valueFlag, "workdir": valueFlag,
}

// aliases maps alternative long names to canonical ones.
var aliases = map[string]string{"net": "network", "net-alias": "network-alias"}

// shorthands maps docker run's one-letter flags to canonical long names.
var shorthands = map[byte]string{
	'a': "attach", 'c': "cpu-shares", 'd': "detach", 'e': "env", 'h': "hostname", 'i': "interactive",
	'l': "label", 'm': "memory", 'P': "publish-all", 'p': "publish", 'q': "quiet", 't': "tty", 'u': "user",
	'v': "volume", 'w': "workdir",
}

// globalFlags are the docker CLI's own options that may come before `run`.
var globalFlags = map[string]flagKind{
	"config": valueFlag, "context": valueFlag, "debug": boolFlag, "host": valueFlag, "log-level": valueFlag,
	"tls": boolFlag, "tlscacert": valueFlag, "tlscert": valueFlag, "tlskey": valueFlag, "tlsverify": boolFlag,
}

var globalShorthands = map[byte]string{'c': "context", 'D': "debug", 'H': "host", 'l': "log-level"}

// harmless lists run flags that cannot weaken any boundary of the policy
// (they name, label, schedule or throttle). Any other flag that no row of the
// boundary table claims is reported as a violation, so the audit fails closed.
var harmless = map[string]bool{
	"add-host": true, "annotation": true, "attach": true, "blkio-weight": true, "blkio-weight-device": true,
	"cgroup-parent": true, "cidfile": true, "cpu-count": true, "cpu-percent": true, "cpu-period": true,
	"cpu-quota": true, "cpu-rt-period": true, "cpu-rt-runtime": true, "cpu-shares": true, "cpuset-cpus": true,
	"cpuset-mems": true, "detach": true, "detach-keys": true, "device-read-bps": true, "device-read-iops": true,
	"device-write-bps": true, "device-write-iops": true, "disable-content-trust": true, "dns": true,
	"dns-option": true, "dns-search": true, "domainname": true, "expose": true, "health-cmd": true,
	"health-interval": true, "health-retries": true, "health-start-interval": true, "health-start-period": true,
	"health-timeout": true, "hostname": true, "interactive": true, "io-maxbandwidth": true,
	"io-maxiops": true, "ip": true, "ip6": true, "isolation": true, "kernel-memory": true, "label": true,
	"label-file": true, "link": true, "link-local-ip": true, "log-opt": true, "mac-address": true,
	"memory-reservation": true, "memory-swappiness": true, "name": true, "network-alias": true,
	"no-healthcheck": true, "oom-score-adj": true, "platform": true, "quiet": true, "restart": true,
	"shm-size": true, "sig-proxy": true, "stop-signal": true, "stop-timeout": true,
	"storage-opt": true, "tty": true, "volume-driver": true, "workdir": true,
}
