package upstream

import "syscall"

// serverProcAttr puts a stdio server in its own process group (a
// terminal's signals reach codemode alone, and Close kills the group) and
// has the kernel kill it when codemode dies.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
