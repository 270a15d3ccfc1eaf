// Command misbehave is the sandbox tests' helper: started under the same
// launcher as the Monty worker, it attempts one thing a worker that
// escaped Monty might, and prints how the attempt ended, one line per
// attempt: "<what>: ok" or "<what>: <error>".
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

func report(what string, err error) {
	if err == nil {
		fmt.Printf("%s: ok\n", what)
		return
	}
	fmt.Printf("%s: %v\n", what, err)
}

func errnoOf(_, _ uintptr, e syscall.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

// readFile opens and reads p with system calls only (os.Open would need
// epoll, which the filter refuses).
func readFile(p string) error {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var b [512]byte
	_, err = syscall.Read(fd, b[:])
	return err
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: misbehave MODE [ARG]")
		os.Exit(2)
	}
	arg := ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	switch os.Args[1] {
	case "socket":
		for _, d := range []struct {
			name   string
			family int
			typ    int
		}{{"inet", syscall.AF_INET, syscall.SOCK_STREAM}, {"inet6", syscall.AF_INET6, syscall.SOCK_DGRAM},
			{"unix", syscall.AF_UNIX, syscall.SOCK_STREAM}, {"netlink", syscall.AF_NETLINK, syscall.SOCK_RAW}} {
			_, err := syscall.Socket(d.family, d.typ, 0)
			report("socket "+d.name, err)
		}
	case "read":
		// arg: a host file the test wrote.
		for _, p := range []string{arg, "/etc/passwd", "/proc/self/status", "/dev/null", "/prog"} {
			report("read "+p, readFile(p))
		}
	case "write":
		for _, p := range []string{arg, "/new-file", "/prog", "/tmp/x"} {
			fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_CLOEXEC, 0o644)
			if err == nil {
				syscall.Close(fd)
			}
			report("write "+p, err)
		}
	case "pids":
		fmt.Printf("getpid: %d\n", os.Getpid())
		fmt.Printf("getppid: %d\n", os.Getppid())
		// arg: the test's own pid on the host.
		pid, _ := strconv.Atoi(arg)
		report("kill host pid", syscall.Kill(pid, 0))
		report("tgkill host pid", syscall.Tgkill(pid, pid, 0))
		report("open /proc", readFile("/proc"))
	case "fork":
		// Children that stay (they pause) until the limit stops the next.
		n := 0
		var err error
		for n < 1000 {
			r1, _, e := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0)
			if e != 0 {
				err = e
				break
			}
			if r1 == 0 { // the child
				for {
					syscall.RawSyscall(syscall.SYS_PAUSE, 0, 0, 0)
				}
			}
			n++
		}
		fmt.Printf("forked: %d\n", n)
		report("fork", err)
	case "privileges":
		report("setuid 0", errnoOf(syscall.RawSyscall(syscall.SYS_SETUID, 0, 0, 0)))
		report("unshare user", syscall.Unshare(syscall.CLONE_NEWUSER))
		r1, _, e := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD|syscall.CLONE_NEWUSER), 0, 0)
		if r1 == 0 && e == 0 {
			os.Exit(0)
		}
		report("clone new user namespace", errnoOf(r1, 0, e))
		report("mount tmpfs", syscall.Mount("tmpfs", "/", "tmpfs", 0, ""))
		report("chroot", syscall.Chroot("/"))
		nnp, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 39 /* PR_GET_NO_NEW_PRIVS */, 0, 0)
		if e != 0 {
			report("no_new_privs", e)
		} else {
			fmt.Printf("no_new_privs: %d\n", nnp)
		}
		var hdr = struct {
			version uint32
			pid     int32
		}{0x20080522, 0}
		var data [2]struct{ eff, prm, inh uint32 }
		_, _, e = syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
		report("capget", errnoOf(0, 0, e))
		report("ptrace attach 1", errnoOf(syscall.RawSyscall(syscall.SYS_PTRACE, syscall.PTRACE_ATTACH, 1, 0)))
	case "spin":
		// Busy until killed: the parent-death test kills its parent.
		fmt.Println("spinning")
		for t := time.Now(); ; {
			if time.Since(t) < 0 {
				break
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
