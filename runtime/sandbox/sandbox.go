// Package sandbox starts a program (the Monty worker) inside an OS sandbox:
// a second wall behind the interpreter, so a program that escaped Monty
// still reaches nothing.
//
// Command returns an exec.Cmd that runs the program through a two-stage
// launcher. Stage one is Go's SysProcAttr: new user, mount, PID, network,
// IPC, UTS and cgroup namespaces; one id mapped (uid and gid 65534 inside;
// see ID for the host's side; setgroups denied); a parent-death signal;
// its own process group. The child is this same executable
// (/proc/self/exe) run under the name InitName; this package's init
// function recognises it (stage two) before the program's main runs and
// before most of its packages initialise, and, holding only CAP_SYS_ADMIN
// and CAP_SETPCAP of its own user namespace:
//
//   - builds a root on a fresh tmpfs (mounted over /tmp, in its own mount
//     namespace only) holding only the program's ELF interpreter and the
//     shared libraries it needs (found from its DT_NEEDED entries), each
//     bound read-only, nosuid, nodev; pivots into it, detaches the host's
//     tree and makes the root read-only. There is no /proc, /dev, /etc or
//     /tmp. The program itself is not in it: the launcher opens it as the
//     caller and stage two executes that descriptor;
//   - leaves the new network namespace as it is: no interface up, not
//     even loopback;
//   - sets the resource limits (address space, CPU seconds, open files,
//     processes, file size 0, no core dumps);
//   - drops every capability (bounding, ambient, effective, permitted,
//     inheritable) and locks the securebits;
//   - sets no_new_privs and loads a seccomp filter (built with
//     github.com/elastic/go-seccomp-bpf from the allow-list in
//     syscalls.go) whose default is EPERM;
//   - executes the program (execveat of its descriptor) with an empty
//     environment.
//
// Anything that fails ends the child before the program runs, with a
// one-line message on stderr ("codemode sandbox: ...") and exit status
// ExitSetup; a kernel that refuses the namespaces fails the start
// (StartError words why). No program runs outside the wall: the sandbox
// fails closed.
//
// Not done: cgroup v2 memory and pids limits. RLIMIT_AS and RLIMIT_NPROC
// bound each worker instead (and Monty's own memory limit each program).
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// InitName is argv[0] of the stage-two child.
const InitName = "codemode-sandbox-init"

// ExitSetup is the exit status of a child that could not build its
// sandbox.
const ExitSetup = 120

// ID is the uid and gid the sandboxed program runs as inside its user
// namespace; on the host it is nobody/nogroup when this process is root,
// else this process's own uid and gid (the only ones an unprivileged
// process may map).
const ID = 65534

// Config sets the sandbox's resource limits; zero fields take the
// defaults below.
type Config struct {
	// AddressSpace is RLIMIT_AS in bytes (default 4 GiB: Monty's own
	// memory limit is the finer one; this one stops a runaway outside it).
	AddressSpace uint64
	// CPU is RLIMIT_CPU (default 1 h of CPU time per worker).
	CPU time.Duration
	// Files is RLIMIT_NOFILE (default 64).
	Files uint64
	// Procs is RLIMIT_NPROC, threads included (default 32).
	Procs uint64
}

// Defaults of Config.
const (
	DefaultAddressSpace = 4 << 30
	DefaultCPU          = time.Hour
	DefaultFiles        = 64
	DefaultProcs        = 32
)

func (c Config) withDefaults() Config {
	if c.AddressSpace == 0 {
		c.AddressSpace = DefaultAddressSpace
	}
	if c.CPU <= 0 {
		c.CPU = DefaultCPU
	}
	if c.Files == 0 {
		c.Files = DefaultFiles
	}
	if c.Procs == 0 {
		c.Procs = DefaultProcs
	}
	return c
}

// spec is what stage one hands stage two, as JSON in argv[1].
type spec struct {
	// Files are host paths bound read-only at the same path in the new
	// root (the ELF interpreter and libraries).
	Prog   string     `json:"prog"` // host path of the program
	Binds  []bindFile `json:"binds"`
	Args   []string   `json:"args"` // argv after the program's name
	AS     uint64     `json:"as"`
	CPU    uint64     `json:"cpu"` // seconds
	NoFile uint64     `json:"nofile"`
	NProc  uint64     `json:"nproc"`
}

// bindFile binds host file Src at path Dst of the new root.
type bindFile struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

// progFD is the program's descriptor in stage two: the first of
// cmd.ExtraFiles, after stdin, stdout and stderr.
const progFD = 3

// ReleaseFiles closes the caller's copy of the program's descriptor;
// call it once cmd has started (or failed to).
func ReleaseFiles(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	cmd.ExtraFiles = nil
}

// Command returns a command that runs bin with args inside the sandbox.
// The caller sets Stdin, Stdout and Stderr (SysProcAttr sets Setpgid and
// Pdeathsig), starts it, then calls ReleaseFiles.
//
// bin itself is opened here, by the caller, and handed to stage two as a
// descriptor that it executes (execveat): the sandbox's uid never walks the
// path to it, so bin may lie in a directory only the caller can enter (a
// checkout in a 0700 home or CI workspace), and nothing beside it is
// reachable. Its ELF interpreter and libraries are bound by path.
func Command(cfg Config, bin string, args ...string) (*exec.Cmd, error) {
	cfg = cfg.withDefaults()
	libs, err := sharedObjects(bin)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	prog, err := filepath.EvalSymlinks(bin)
	if err == nil {
		prog, err = filepath.Abs(prog)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	sp := spec{Prog: prog, Binds: libs, Args: args, AS: cfg.AddressSpace, CPU: uint64((cfg.CPU + time.Second - 1) / time.Second),
		NoFile: cfg.Files, NProc: cfg.Procs}
	b, err := json.Marshal(sp)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// Root maps the sandbox's id to nobody; anyone else can map only its
	// own ids (the program then runs as that user on the host, still with
	// no capabilities, no files and no network).
	hostUID, hostGID := ID, ID
	if os.Geteuid() != 0 {
		hostUID, hostGID = os.Geteuid(), os.Getegid()
	}
	fd, err := unix.Open(prog, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: opening %s: %w", prog, err)
	}
	progFile := os.NewFile(uintptr(fd), prog)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{InitName, string(b)}, ExtraFiles: []*os.File{progFile}}
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: ID, HostID: hostUID, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: ID, HostID: hostGID, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Credential:                 &syscall.Credential{Uid: ID, Gid: ID, NoSetGroups: true},
		// Stage two needs these two, in its own user namespace only, to
		// build the root and drop the bounding set; it drops them before
		// the program runs.
		AmbientCaps: []uintptr{capSysAdmin, capSetpcap},
		Pdeathsig:   syscall.SIGKILL,
		Setpgid:     true,
	}
	return cmd, nil
}

const (
	capSetpcap  = 8
	capSysAdmin = 21
)

// sharedObjects lists the files bin needs bound into the root: its ELF
// interpreter and shared libraries, cached per binary.
func sharedObjects(bin string) ([]bindFile, error) {
	fi, err := os.Stat(bin)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", bin, fi.Size(), fi.ModTime().UnixNano())
	if v, ok := libCache.Load(key); ok {
		return v.([]bindFile), nil
	}
	libs, err := elfDeps(bin)
	if err != nil {
		return nil, err
	}
	libCache.Store(key, libs)
	return libs, nil
}

var libCache sync.Map

// ErrSetup is wrapped by the error describing a child that could not
// build its sandbox (see SetupError).
var ErrSetup = errors.New("the OS sandbox could not be set up")

// StartError explains why a sandboxed command could not start: the
// kernel's refusal to make the namespaces, in words.
func StartError(err error) error {
	var why string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		why = "this machine allows no new user namespaces (user.max_user_namespaces is 0)"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		why = "this machine refuses this process a user namespace (unprivileged user namespaces are disabled, or a security module or container seccomp profile forbids them)"
	case errors.Is(err, syscall.EINVAL):
		why = "this kernel cannot make the namespaces"
	default:
		return fmt.Errorf("%w: %w", ErrSetup, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrSetup, why, err)
}
