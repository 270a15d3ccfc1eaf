//go:build !linux

package upstream

import "syscall"

// serverProcAttr puts a stdio server in its own process group, so a
// terminal's signals reach codemode alone and Close kills the group.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
