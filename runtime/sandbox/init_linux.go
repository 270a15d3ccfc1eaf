package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// init runs stage two when this executable was started by Command: before
// main, before any other init of the program's main package.
func init() {
	if len(os.Args) != 2 || os.Args[0] != InitName {
		return
	}
	// Capabilities, no_new_privs and the seccomp filter are per thread:
	// all of stage two, up to the exec, runs on this one.
	goruntime.LockOSThread()
	// Only inside the namespaces Command makes: started any other way
	// (by hand, with this argv[0]), stage two would remount the host.
	if m, err := os.ReadFile("/proc/self/uid_map"); err != nil || os.Getpid() != 1 ||
		!strings.HasPrefix(strings.Join(strings.Fields(string(m)), " ")+" ", strconv.Itoa(ID)+" ") {
		die("", errors.New("not started by the sandbox's launcher (no new user and PID namespace)"))
	}
	var sp spec
	if err := json.Unmarshal([]byte(os.Args[1]), &sp); err != nil {
		die("reading the launch spec", err)
	}
	if err := stageTwo(&sp); err != nil {
		die("", err)
	}
}

func die(what string, err error) {
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	fmt.Fprintf(os.Stderr, "codemode sandbox: %v\n", err)
	os.Exit(ExitSetup)
}

type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

func step(name string, err error) error {
	if err == nil {
		return nil
	}
	return &stepError{name, err}
}

// newRoot is where the tmpfs of the new root is built before pivot_root;
// it exists on every system and is shadowed only in this mount namespace.
const newRoot = "/tmp"

func stageTwo(sp *spec) error {
	if err := step("making mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	// The sources are opened before the tmpfs covers newRoot (they may lie
	// under it) and bound from their descriptors.
	// The program is not among them: it arrives as descriptor progFD,
	// opened by the launcher, and is executed from there.
	if _, err := unix.FcntlInt(progFD, unix.F_GETFD, 0); err != nil {
		return step("receiving "+sp.Prog, err)
	}
	binds := sp.Binds
	fds := make([]int, len(binds))
	for i, b := range binds {
		fd, err := unix.Open(b.Src, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return step("opening "+b.Src, err)
		}
		fds[i] = fd
	}
	if err := step("mounting the root tmpfs", unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOATIME, "size=64k,nr_inodes=64,mode=0755")); err != nil {
		return err
	}
	for i, b := range binds {
		if err := bindReadOnly(b.Src, fmt.Sprintf("/proc/self/fd/%d", fds[i]), filepath.Join(newRoot, b.Dst)); err != nil {
			return err
		}
		unix.Close(fds[i])
	}
	if err := step("entering the new root", unix.Chdir(newRoot)); err != nil {
		return err
	}
	if err := step("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := step("detaching the host's tree", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	if err := step("entering the new root", unix.Chdir("/")); err != nil {
		return err
	}
	if err := step("making the root read-only", unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOATIME, "")); err != nil {
		return err
	}
	// Nothing but stdin, stdout and stderr reaches the program: every
	// other descriptor, the program's own included, closes on exec.
	if err := step("closing descriptors", unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	filter, err := Filter()
	if err != nil {
		return step("building the seccomp filter", err)
	}
	argv := append([]string{"monty"}, sp.Args...)
	// The limits come last: the address-space and process limits are
	// below what this Go process may use, but not below what the
	// program needs.
	for _, l := range []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, sp.NoFile},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, sp.NProc},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, 0},
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_CPU", unix.RLIMIT_CPU, sp.CPU},
		{"RLIMIT_AS", unix.RLIMIT_AS, sp.AS},
	} {
		// syscall's Setrlimit, so that syscall.Exec does not put back the
		// soft RLIMIT_NOFILE this process started with.
		rl := syscall.Rlimit{Cur: l.value, Max: l.value}
		if err := step("setting "+l.name, syscall.Setrlimit(l.resource, &rl)); err != nil {
			return err
		}
	}
	if err := step("loading the seccomp filter", seccomp.LoadFilter(filter)); err != nil {
		return err
	}
	return step("starting the program", execFD(progFD, argv))
}

// execFD executes the program open at fd (execveat with AT_EMPTY_PATH),
// with argv and an empty environment. It returns only on failure.
func execFD(fd int, argv []string) error {
	empty, err := unix.BytePtrFromString("")
	if err != nil {
		return err
	}
	argvp := make([]*byte, 0, len(argv)+1)
	for _, a := range argv {
		p, err := unix.BytePtrFromString(a)
		if err != nil {
			return err
		}
		argvp = append(argvp, p)
	}
	argvp = append(argvp, nil)
	envp := []*byte{nil}
	_, _, errno := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
	return errno
}

// bindReadOnly binds host file name (open at path src) at dst (in the new
// root, created), read-only, nosuid, nodev.
func bindReadOnly(name, src, dst string) error {
	what := "binding " + name
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return step(what, err)
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o444)
	if err != nil {
		return step(what, err)
	}
	f.Close()
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return step(what, err)
	}
	// A bind mount's remount must keep the flags the host locked on the
	// original (noexec, atime flags): take them from it.
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return step(what, err)
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return step(what+" read-only", unix.Mount("", dst, "", flags, ""))
}

// dropCapabilities gives up every capability for good: securebits locked
// so that no exec or uid change grants any, the bounding and ambient sets
// emptied, then the thread's own sets.
func dropCapabilities() error {
	// linux/securebits.h: NOROOT, NO_SETUID_FIXUP and NO_CAP_AMBIENT_RAISE,
	// each with its lock, and KEEP_CAPS locked off.
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7
	if err := step("locking securebits", unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0)); err != nil {
		return err
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err == unix.EINVAL {
			break
		} else if err != nil {
			return step("dropping the bounding set", err)
		}
	}
	if err := step("clearing ambient capabilities", unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return step("dropping capabilities", unix.Capset(&hdr, &data[0]))
}
