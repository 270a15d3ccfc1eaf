package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// slowPack writes and compiles a pack whose one service is testmcp slow,
// logging each call's start to the returned file.
func slowPack(t testing.TB) (dir, log string) {
	t.Helper()
	montyBin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEMODE_MONTY", montyBin)
	dir = genStubPack(t, func(dir, stub string) string {
		log = filepath.Join(dir, "calls.log")
		// The store comes from the environment when CODEMODE_STORE is set, else
		// it is the default beside the pack.
		return fmt.Sprintf("out: api\nstore: ${CODEMODE_STORE}\nservices:\n  - name: slow\n    mcp_command: [%q, slow]\n    env:\n      SLOW_LOG: %q\n", stub, log)
	})
	return dir, log
}

// replica is one codemode serve --http process.
type replica struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *strings.Builder
}

var servingAt = regexp.MustCompile(`serving MCP over streamable HTTP at (http://\S+)`)

// startReplica starts codemode serve --http on the pack in dir with args
// (--store, --state) and connects a client to it.
func startReplica(t testing.TB, dir string, args ...string) *replica {
	t.Helper()
	return startReplicaEnv(t, dir, nil, args...)
}

// startReplicaEnv is startReplica with more environment.
func startReplicaEnv(t testing.TB, dir string, env []string, args ...string) *replica {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{stderr: &strings.Builder{}}
	r.cmd = &exec.Cmd{Path: exe, Dir: dir, Args: append([]string{"codemode", "serve", "-c", "codemode.yaml", "--audit", "off", "--http", "127.0.0.1:0", "--insecure-no-auth"}, args...)}
	if env != nil {
		r.cmd.Env = append(os.Environ(), env...)
	}
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.kill() })
	sc := bufio.NewScanner(pipe)
	url := ""
	for url == "" && sc.Scan() {
		r.stderr.WriteString(sc.Text() + "\n")
		if m := servingAt.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("serve did not start:\n%s", r.stderr)
	}
	go io.Copy(io.Discard, pipe)
	r.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *replica) kill() {
	if r.cs != nil {
		r.cs.Close()
		r.cs = nil
	}
	if r.cmd.ProcessState == nil {
		r.cmd.Process.Signal(syscall.SIGKILL)
		r.cmd.Wait()
	}
}

// stop stops the replica as a SIGTERM does.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.cs.Close()
	r.cs = nil
	r.cmd.Process.Signal(syscall.SIGTERM)
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("serve exited with %v:\n%s", err, r.stderr)
	}
}

// call calls an MCP tool in a named session and returns its text.
func (r *replica) call(t *testing.T, session, tool string, args map[string]any) string {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{gateway.SessionMeta: session}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// callE is call, for other goroutines: it returns its error.
func (r *replica) callE(session, tool string, args map[string]any) (string, error) {
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{gateway.SessionMeta: session}})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

func (r *replica) run(t *testing.T, session, code string) string {
	t.Helper()
	return r.call(t, session, "run_code", map[string]any{"code": code})
}

// untilRuns runs code in session until the session no longer waits.
func (r *replica) untilRuns(t *testing.T, session, code string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := r.run(t, session, code)
		if !strings.Contains(got, "run_code refused: this session is waiting") {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting: %s", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// calls are the lines of the upstream's call log: one per call started.
func calls(t testing.TB, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] == "" {
		return nil
	}
	slices.Sort(lines)
	return lines
}

// untilCalled waits until the upstream has started the calls want.
func untilCalled(t *testing.T, log string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := calls(t, log)
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return slices.Contains(got, w) })
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls %q were not started (log %q)", missing, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const lostJobText = "the gateway that ran this job stopped before the job ended: its outcome is unknown, and it was not run again; check its effects before submitting it again"

// killMidJobs submits a write job and a read-only job on r, waits until
// the upstream started both, and SIGKILLs r.
func killMidJobs(t *testing.T, r *replica, log, session string) {
	t.Helper()
	if got := r.call(t, session, "read_api", map[string]any{"service": "slow", "lines": ""}); !strings.Contains(got, "def write(") {
		t.Fatalf("read_api: %q", got)
	}
	got := r.run(t, session, `jobs.submit("w", api.slow.write, seconds=60, tag="w")
jobs.submit("r", api.slow.read, seconds=2, tag="r")
jobs.wait(wake_after=600)
`)
	if !strings.HasPrefix(got, "NOTE: WAIT: this session waits for job r, w until it ends or until ") {
		t.Fatalf("submit: %q", got)
	}
	untilCalled(t, log, "write w", "read r")
	r.kill()
}

// collectAfterKill reads, on r, the jobs killMidJobs left: the write is
// reported unknown and was never run again; the read-only one ran again
// (it may) and its result is collected.
func collectAfterKill(t *testing.T, r *replica, log, session string) {
	t.Helper()
	got := r.untilRuns(t, session, "for n in ['r', 'w']:\n    j = jobs.get(n)\n    print(n, j['state'], j.get('result'), j.get('error'))\n")
	want := "NOTE: the wait for job r, w is over: the job ended; jobs.get() returns its state and result\n\nr done read r done None\nw unknown None " + lostJobText + "\n[0 tool calls]\n"
	if got != want {
		t.Fatalf("after the kill:\n%s\nwant\n%s", got, want)
	}
	got = ""
	for _, c := range calls(t, log) {
		if c == "read r" || c == "write w" {
			got += c + "; "
		}
	}
	if got != "read r; read r; write w; " {
		t.Fatalf("upstream calls %q: the write must have run once, the read twice", got)
	}
}

// TestServeKilledMidJobRerun: a gateway SIGKILLed while its jobs run
// leaves them in its store (SQLite beside the pack); the next gateway
// reports the write as unknown and never runs it again, and runs the
// read-only one again and collects its result.
func TestServeKilledMidJobRerun(t *testing.T) {
	dir, log := slowPack(t)
	a := startReplica(t, dir)
	killMidJobs(t, a, log, "s")
	b := startReplica(t, dir)
	collectAfterKill(t, b, log, "s")
	// The store is beside the pack, where codemode jobs finds it.
	db := filepath.Join(dir, ".codemode", "state.db")
	for _, args := range [][]string{{"-c", filepath.Join(dir, "codemode.yaml")}, {"--store", db}} {
		var out, errb strings.Builder
		if code := run(append([]string{"jobs", "list", "--session", "s"}, args...), nil, &out, &errb); code != 0 || out.String() != "r\tdone\tapi.slow.read\nw\tunknown\tapi.slow.write\n" {
			t.Fatalf("codemode jobs list %q: %d %q %q", args, code, out.String(), errb.String())
		}
	}
}

// TestReplicasSharePostgres: two gateways on one PostgreSQL serve one
// session between them: a read made on A lets a call through on B, state
// made on A is seen on B, a job submitted on A is collected on B, jobs
// left by a SIGKILLed replica are settled truthfully by the other (the
// write never runs again), and many jobs over two replicas each run once.
func TestReplicasSharePostgres(t *testing.T) {
	url := testpg.Start(t)
	dir, log := slowPack(t)
	// Each replica has a state directory of its own: what they share is
	// in the database.
	// A takes the store from --store, B from the pack's store: key.
	a := startReplica(t, dir, "--store", url, "--state", t.TempDir(), "--metrics-addr", "127.0.0.1:0")
	b := startReplicaEnv(t, dir, []string{"CODEMODE_STORE=" + url}, "--state", t.TempDir())
	const call = "print(api.slow.read(seconds=0, tag='gate'))\n"
	if got := b.run(t, "s", call); !strings.Contains(got, "PermissionError: api.slow.read was refused: read api/slow.py") {
		t.Fatalf("a call before any read: %q", got)
	}
	if got := a.call(t, "s", "find_tool", map[string]any{"query": "slow.read"}); !strings.Contains(got, "def read(") {
		t.Fatalf("find_tool on A: %q", got)
	}
	if got := b.run(t, "s", call); got != "read gate done\n[1 tool call]\n" {
		t.Fatalf("the call on B after the read on A: %q", got)
	}
	if got := b.run(t, "other", call); !strings.Contains(got, "was refused: read api/slow.py") {
		t.Fatalf("another session got s's read: %q", got)
	}
	if got := a.run(t, "s", "x = 41\n"); got != "[0 tool calls]\n" {
		t.Fatalf("state on A: %q", got)
	}
	if got := b.run(t, "s", "print(x + 1)\n"); got != "42\n[0 tool calls]\n" {
		t.Fatalf("state on B: %q", got)
	}
	got := a.run(t, "s", "jobs.submit('q', api.slow.read, seconds=0.2, tag='q')\njobs.wait('q', wake_after=600)\n")
	if !strings.HasPrefix(got, "NOTE: WAIT: this session waits for job q") {
		t.Fatalf("submit on A: %q", got)
	}
	if got := b.untilRuns(t, "s", "print(jobs.get('q')['result'])\n"); got != "NOTE: the wait for job q is over: the job ended; jobs.get() returns its state and result\n\nread q done\n[0 tool calls]\n" {
		t.Fatalf("collected on B: %q", got)
	}
	// The store's latency is in A's metrics.
	m := regexp.MustCompile(`without a token on (\S+)`).FindStringSubmatch(a.stderr.String())
	if m == nil {
		t.Fatalf("no metrics address in:\n%s", a.stderr)
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, op := range []string{"jobs.update", "lease", "state.load", "state.save", "queue.insert"} {
		if !regexp.MustCompile(`codemode_store_seconds_count\{op="` + op + `",outcome="ok"\} [1-9]`).Match(body) {
			t.Fatalf("no %s in the store's metrics:\n%s", op, body)
		}
	}

	// A dies mid-job (B is stopped first, so that A runs the jobs); B,
	// started again, settles what A left.
	b.stop(t)
	killMidJobs(t, a, log, "k")
	b = startReplica(t, dir, "--store", url, "--state", t.TempDir())
	collectAfterKill(t, b, log, "k")

	// Sixteen jobs over two replicas: each runs exactly once.
	a2 := startReplica(t, dir, "--store", url, "--state", t.TempDir())
	var code strings.Builder
	for i := range 16 {
		fmt.Fprintf(&code, "jobs.submit('m%02d', api.slow.write, seconds=0.3, tag='m%02d')\n", i, i)
	}
	code.WriteString("jobs.wait(wake_after=600)\n")
	a2.call(t, "many", "read_api", map[string]any{"service": "slow", "lines": ""})
	// The wait names the jobs still running when it is reached: under load
	// the first ones may be done by then.
	if got := a2.run(t, "many", code.String()); !regexp.MustCompile(`^NOTE: WAIT: this session waits for job m\d\d[, ]`).MatchString(got) {
		t.Fatalf("sixteen jobs: %q", got)
	}
	got = b.untilRuns(t, "many", "print(sorted(set(j['state'] for j in jobs.list())), len(jobs.list()))\n")
	if !strings.HasSuffix(got, "['done'] 16\n[0 tool calls]\n") {
		t.Fatalf("sixteen jobs: %q", got)
	}
	var ms []string
	for _, c := range calls(t, log) {
		if strings.HasPrefix(c, "write m") {
			ms = append(ms, c)
		}
	}
	if len(ms) != 16 || len(slices.Compact(slices.Clone(ms))) != 16 {
		t.Fatalf("sixteen jobs made %d calls: %q", len(ms), ms)
	}

	// A job cancelled on one replica stops its call on whichever runs it.
	if got := a2.run(t, "many", "jobs.submit('c', api.slow.write, seconds=60, tag='c')\n"); got != "[0 tool calls]\n" {
		t.Fatalf("submit c: %q", got)
	}
	untilCalled(t, log, "write c")
	if got := b.run(t, "many", "print(jobs.cancel('c')['state'])\n"); got != "cancelled\n[0 tool calls]\n" {
		t.Fatalf("cancel on B: %q", got)
	}
	untilCalled(t, log, "write c cancelled")
}

// BenchmarkReplicas64Sessions: 64 sessions at once over two gateways on
// one PostgreSQL, each moving between them: state set on one replica and
// read on the other with a call there. No errors, no cross-talk (each
// session sees its own state), and every call the upstream received is in
// a replica's audit log. One op is one round of the 64 sessions.
//
// The sqlite-1 case, the same sessions on one gateway with its SQLite
// store, is the baseline the postgres-2 case is read against.
func BenchmarkReplicas64Sessions(b *testing.B) {
	b.Run("postgres-2", func(b *testing.B) {
		url := testpg.Start(b)
		dir, log := slowPack(b)
		audits := []string{filepath.Join(b.TempDir(), "a.jsonl"), filepath.Join(b.TempDir(), "b.jsonl")}
		reps := []*replica{
			startReplica(b, dir, "--store", url, "--state", b.TempDir(), "--audit", audits[0]),
			startReplica(b, dir, "--store", url, "--state", b.TempDir(), "--audit", audits[1]),
		}
		sessions64(b, reps, log, audits)
	})
	b.Run("sqlite-1", func(b *testing.B) {
		dir, log := slowPack(b)
		audits := []string{filepath.Join(b.TempDir(), "a.jsonl")}
		r := startReplica(b, dir, "--state", b.TempDir(), "--audit", audits[0])
		sessions64(b, []*replica{r, r}, log, audits)
	})
}

func sessions64(b *testing.B, reps []*replica, log string, audits []string) {
	const n = 64
	b.ResetTimer()
	for round := range b.N {
		errs := make(chan error, n)
		for i := range n {
			go func() {
				s := fmt.Sprintf("r%d-s%d", round, i)
				one, other := reps[i%2], reps[(i+1)%2]
				if got, err := one.callE(s, "read_api", map[string]any{"service": "slow", "lines": ""}); err != nil || !strings.Contains(got, "def read(") {
					errs <- fmt.Errorf("%s: read_api: %q %v", s, got, err)
					return
				}
				if got, err := one.callE(s, "run_code", map[string]any{"code": fmt.Sprintf("x = %q\n", s)}); err != nil || got != "[0 tool calls]\n" {
					errs <- fmt.Errorf("%s: set: %q %v", s, got, err)
					return
				}
				want := fmt.Sprintf("%s read %s done\n[1 tool call]\n", s, s)
				if got, err := other.callE(s, "run_code", map[string]any{"code": "print(x, api.slow.read(seconds=0, tag=x))\n"}); err != nil || got != want {
					errs <- fmt.Errorf("%s: on the other replica: %q (want %q) %v", s, got, want, err)
					return
				}
				errs <- nil
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "sessions/s")
	// Every call the upstream received is audited, once.
	received := 0
	for _, c := range calls(b, log) {
		if !strings.HasPrefix(c, "read r") {
			continue
		}
		received++
		tag := strings.TrimPrefix(c, "read ")
		found := 0
		for _, a := range audits {
			body, _ := os.ReadFile(a)
			for line := range strings.SplitSeq(string(body), "\n") {
				if strings.Contains(line, `"kind":"call"`) && strings.Contains(line, `"status":"ok"`) && strings.Contains(line, `"read `+tag+` done"`) {
					found++
				}
			}
		}
		if found != 1 {
			b.Fatalf("call %s was audited %d times", tag, found)
		}
	}
	if received != b.N*n {
		b.Fatalf("the upstream received %d calls, want %d", received, b.N*n)
	}
}
