//go:build unix

// Package proccpu reads the CPU time the process has used, for the
// benchmarks that report cpu-s/op: CPU on every core, GC included, which
// other processes on a shared machine move less than wall time.
package proccpu

import (
	"syscall"
	"time"
)

// Used is the CPU time (user and system) the process has used, 0 when it
// cannot be read.
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
