// Package memguard bounds the memory a codemode process may use: when its
// Go heap holds more live data than a limit, the process stops with one
// line saying so, rather than growing until the kernel kills it (or the
// other programs on the machine). A compile of a very large spec is the
// case it is for: Microsoft Graph's beta API (47 MB of JSON) took more
// than 24 GB before it was killed.
//
// The limit is CODEMODE_MAX_MEMORY ("8GiB", "512MB", "off"); by default
// half the machine's memory, at most 8 GiB. The Go runtime is also told the
// limit (runtime/debug.SetMemoryLimit), so it collects harder as the heap
// nears it before the guard gives up; the guard stops the process only when
// a forced collection leaves more live data than the limit.
package memguard

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/internal/bytesize"
)

// Env names the variable that sets the limit.
const Env = "CODEMODE_MAX_MEMORY"

// DefaultCap is the most the default limit is.
const DefaultCap = 8 << 30

// poll is how often the heap is looked at.
const poll = 50 * time.Millisecond

// Limit reads the limit from the environment: 0 when it is off.
func Limit() (uint64, error) {
	v := strings.TrimSpace(os.Getenv(Env))
	switch strings.ToLower(v) {
	case "off", "none", "0":
		return 0, nil
	case "":
		return defaultLimit(), nil
	}
	n, err := bytesize.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %v, or off", Env, v, err)
	}
	return n, nil
}

func defaultLimit() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return DefaultCap
	}
	return min(uint64(si.Totalram)*uint64(si.Unit)/2, DefaultCap)
}

// Start watches the heap until stop is called; past limit it writes one
// line to w and exits the process with status 1. A zero limit watches
// nothing.
func Start(limit uint64, w io.Writer) (stop func()) {
	if limit == 0 {
		return func() {}
	}
	old := debug.SetMemoryLimit(int64(min(limit, 1<<62)))
	done := make(chan struct{})
	go watch(limit, w, done, func() { os.Exit(1) })
	return func() {
		close(done)
		debug.SetMemoryLimit(old)
	}
}

func watch(limit uint64, w io.Writer, done <-chan struct{}, exit func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Uint64() <= limit {
			continue
		}
		// Objects include garbage not yet swept: collect, then look at
		// what is live.
		runtime.GC()
		metrics.Read(sample)
		if used := sample[0].Value.Uint64(); used > limit {
			fmt.Fprintf(w, "codemode: stopped: it needed more than %s of memory (%d MiB in use); set %s to a larger size, or off\n",
				bytesize.Format(int64(limit)), used>>20, Env)
			exit()
			return
		}
	}
}
