package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
)

const wantJobsHint = `a program cannot wait: start the long call with jobs.submit("name", api.<service>.<tool>, arg=value) and end the turn with jobs.wait("name", wake_after=seconds); a later turn reads jobs.get("name")`

// TestSleepCorrectionNamesNoJobs pins the defect: time.sleep, a busy-wait
// loop that hits the time limit, threading and subprocess failed with a
// generic hint that never named the primitive that does the job here
// (jobs.submit / jobs.wait, api.aio with asyncio.gather). The real Monty
// binary reports each; the correction names the fix.
func TestSleepCorrectionNamesNoJobs(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.Time = time.Second; c.Limits.Output = 4000 })
	for _, c := range []struct{ name, code, want string }{
		{"time.sleep", "import time\ntime.sleep(60)\n", "Hint: there is no time module here (no sleep, no clock); " + wantJobsHint + "."},
		{"asyncio.sleep", "import asyncio\nawait asyncio.sleep(60)\n", "Hint: asyncio.sleep is not available; " + wantJobsHint + "."},
		{"busy-wait", "n = 0\nwhile n >= 0:\n    n += 1\n", "LimitError: time limit (1s) exceeded; the program was stopped. Make fewer or smaller calls, or filter less data per program.\nHint: " + wantJobsHint + "."},
		{"threading", "import threading\n", "Hint: there are no threads here. For calls at the same time, import asyncio and await asyncio.gather(api.aio.<service>.<tool>(...), ...); for a call in the background, jobs.submit it: " + wantJobsHint + "."},
		{"subprocess", "import subprocess\n", `Hint: this sandbox runs no processes; a tool does the work: call it as api.<service>.<tool>(...) (find it with find_tool("<what you need>")), and if it runs long, ` + wantJobsHint + "."},
	} {
		res := run(t, rt, c.code)
		if !strings.HasSuffix(res.Error, c.want+"\n") && res.Error != c.want {
			t.Errorf("%s: error:\n%s\nwant it to end with:\n%s", c.name, res.Error, c.want)
		}
	}
}

// TestStdlibGapUnanswered pins the defect: datetime.fromtimestamp,
// ipaddress, zoneinfo and the clock (Monty 0.0.23 lacks them) failed with
// nothing to use instead. The codemode helpers answer them on the host,
// and each missing piece's error names the alternative.
func TestStdlibGapUnanswered(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.Output = 4000 })
	res := run(t, rt, `import datetime
print(codemode.to_timezone("2024-06-01T12:00:00+00:00", "Europe/Paris"))
print(codemode.to_timezone("2024-01-01T12:00:00Z", "America/New_York"))
print(datetime.datetime.fromisoformat(codemode.now()).tzinfo)
ip = codemode.ip("10.0.0.5")
print(ip["version"], ip["is_private"], ip["is_global"], codemode.ip("::1")["is_loopback"], codemode.ip("8.8.8.8")["is_global"])
print(codemode.ip_in_network("10.0.0.5", "10.0.0.0/8"), codemode.ip_in_network("11.0.0.5", "10.0.0.0/8"))
try:
    codemode.ip("10.0.0.300")
except ValueError as e:
    print(e)
try:
    codemode.to_timezone("2024-06-01T12:00:00+00:00", "Mars/Olympus")
except ValueError as e:
    print(e)
`)
	want := "2024-06-01T14:00:00+02:00\n2024-01-01T07:00:00-05:00\nUTC\n4 True False True True\nTrue False\n" +
		"codemode.ip(): \"10.0.0.300\" does not appear to be an IPv4 or IPv6 address\n" +
		"codemode.to_timezone(): \"Mars/Olympus\" is not a time zone name, e.g. \"Europe/Paris\" or \"UTC\"\n"
	if res.Error != "" || res.Output != want {
		t.Fatalf("helpers: %s\nwant output:\n%s", res.Text(), want)
	}
	for _, c := range []struct{ name, code, want string }{
		{"fromtimestamp", "import datetime\nprint(datetime.datetime.fromtimestamp(0))\n", "Hint: datetime.datetime.fromtimestamp is not available; datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=ts) is the UTC time of a Unix timestamp ts."},
		{"now", "import datetime\nprint(datetime.datetime.now())\n", "Hint: the sandbox has no clock; codemode.now() returns the current UTC time as an ISO string (read it with datetime.datetime.fromisoformat)."},
		{"ipaddress", "import ipaddress\n", `Hint: there is no ipaddress module here; codemode.ip("10.0.0.5") returns an address's version and flags (is_private, is_loopback, ...), and codemode.ip_in_network("10.0.0.5", "10.0.0.0/8") tests membership.`},
		{"zoneinfo", "import zoneinfo\n", `Hint: there is no zoneinfo module here; codemode.to_timezone("2024-06-01T12:00:00+00:00", "Europe/Paris") returns the ISO time in that zone (read it with datetime.datetime.fromisoformat); fixed offsets work with datetime.timezone(datetime.timedelta(hours=2)).`},
	} {
		res := run(t, rt, c.code)
		if !strings.HasSuffix(res.Error, c.want+"\n") {
			t.Errorf("%s: error:\n%s\nwant it to end with:\n%s", c.name, res.Error, c.want)
		}
	}
	// The fromtimestamp alternative the hint gives runs in Monty.
	if res := run(t, rt, "import datetime\nprint(datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=1700000000))\n"); res.Output != "2023-11-14 22:13:20+00:00\n" {
		t.Errorf("the alternative: %s", res.Text())
	}
}
