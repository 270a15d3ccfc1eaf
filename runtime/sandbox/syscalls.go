package sandbox

import (
	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// This file is the sandbox's system-call policy, the one place to review
// it. Every other system call fails with EPERM.
//
// The list was derived from `strace -f` of the pinned monty binary (0.0.23)
// across the runtime/monty and runtime test suites (every feed, dump, load,
// limit, kill and hostile-program test), from its execve on. Monty runs
// single-threaded: it never cloned. Its calls, by what they are for:
//
//	loader and libc start-up: execveat (stage two's exec of the worker,
//	  from the descriptor the launcher opened; traced as execve before),
//	  brk, mmap, mprotect, munmap, arch_prctl, set_tid_address,
//	  set_robust_list, rseq, access, openat, read, pread64, close,
//	  newfstatat, statx, lseek, prlimit64 (reads RLIMIT_STACK),
//	  getrandom
//	Rust std start-up: poll (of fds 0-2), sigaltstack, rt_sigaction,
//	  sched_getaffinity, gettid; openat of /proc/self/maps and
//	  /sys/fs/cgroup/cpu/*, which the sandbox's root does not hold (they
//	  fail with ENOENT, which Rust tolerates)
//	the protocol and the heap: read, write, mremap, munmap
//	ending: exit_group
//
// Added beyond the trace, each for a reason:
//
//	madvise: the allocator's way to return memory, under heavier load
//	than the tests'.
//	exit, rt_sigreturn, rt_sigprocmask, sched_yield, futex, nanosleep,
//	clock_nanosleep, clock_gettime, getpid, tgkill, fcntl, fstat, writev,
//	readv, restart_syscall: the signal, time and lock paths of libc and
//	of the Go code of stage two between loading this filter and its exec
//	(the filter applies from that point), which a trace of normal runs may
//	not hit.
//	clone, only without any namespace flag: thread and process creation,
//	which RLIMIT_NPROC bounds (Monty does not use it today).
//
// clone3 fails with ENOSYS rather than EPERM (its flags are in memory,
// where a filter cannot read them), so libc falls back to clone.
var allowed = []string{
	"access", "arch_prctl", "brk", "clock_gettime", "clock_nanosleep", "close",
	"execveat", "exit", "exit_group", "fcntl", "fstat", "futex", "getpid",
	"getrandom", "gettid", "lseek", "madvise", "mmap", "mprotect", "mremap",
	"munmap", "nanosleep", "newfstatat", "openat", "poll", "pread64",
	"prlimit64", "read", "readv", "restart_syscall", "rseq", "rt_sigaction",
	"rt_sigprocmask", "rt_sigreturn", "sched_getaffinity", "sched_yield",
	"set_robust_list", "set_tid_address", "sigaltstack", "statx", "tgkill",
	"write", "writev",
}

// namespaceFlags are the clone flags that make a namespace; clone with
// any of them is refused.
const namespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// Allowed returns the system calls the filter allows unconditionally (a
// copy); clone is allowed too, without namespace flags.
func Allowed() []string { return append([]string{}, allowed...) }

// Filter is the seccomp filter stage two loads (with no_new_privs).
func Filter() (seccomp.Filter, error) {
	f := seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionErrno,
			Syscalls: []seccomp.SyscallGroup{
				{Action: seccomp.ActionAllow, Names: allowed},
				{Action: seccomp.ActionAllow, NamesWithCondtions: []seccomp.NameWithConditions{{
					Name:       "clone",
					Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsNotSet, Value: namespaceFlags}},
				}}},
				{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
			},
		},
	}
	if _, err := f.Policy.Assemble(); err != nil {
		return f, err
	}
	return f, nil
}
