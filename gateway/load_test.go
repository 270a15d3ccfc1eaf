package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// recorder remembers every echo message the upstream received.
type recorder struct {
	upstream.Upstream
	mu       sync.Mutex
	messages map[string]int
}

func (r *recorder) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	if tool.Wire == "echo" {
		r.mu.Lock()
		r.messages[fmt.Sprint(args["message"])]++
		r.mu.Unlock()
	}
	return r.Upstream.Call(ctx, tool, args)
}

// loadRig is a gateway behind bearer auth on a real listener, its upstream
// recorded.
type loadRig struct {
	f   *fixture
	rec *recorder
	url string
}

func newLoadRig(tb testing.TB, workers int) *loadRig {
	tb.Helper()
	rig := &loadRig{rec: &recorder{messages: map[string]int{}}}
	rig.f = newFixture(tb, false, func(c *runtime.Config) {
		if c.Upstreams == nil { // newFixture's second look, for Persistent
			return
		}
		rig.rec.Upstream = c.Upstreams["everything"]
		c.Upstreams["everything"] = rig.rec
		c.Workers = workers
	})
	hs := serveHTTP(tb, rig.f, gateway.HTTPOptions{Tokens: tokensFile(tb, writeTokens(tb, tokenA, tokenB))})
	rig.url = hs.URL
	return rig
}

// open opens n sessions, alternating the two tokens, each having read
// echo's and get_sum's definitions.
func (rig *loadRig) open(tb testing.TB, n int) []*mcp.ClientSession {
	tb.Helper()
	out := make([]*mcp.ClientSession, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			tok := tokenA
			if i%2 == 1 {
				tok = tokenB
			}
			cs, err := connectHTTP(tb, rig.url, tok)
			if err != nil {
				errs <- err
				return
			}
			for _, q := range []string{"everything.echo", "everything.get_sum"} {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "find_tool", Arguments: map[string]any{"query": q}}); err != nil {
					errs <- err
					return
				}
			}
			out[i] = cs
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	return out
}

// echoCalls is how many echo calls each program makes.
const echoCalls = 3

// round runs one program in every session at once, each program's calls
// carrying values only that session and round use, and checks that each
// session got back exactly its own values. It returns the messages sent.
func (rig *loadRig) round(tb testing.TB, sessions []*mcp.ClientSession, round int) []string {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions))
	for i, cs := range sessions {
		wg.Go(func() {
			tag := fmt.Sprintf("s%03d-r%d", i, round)
			code := fmt.Sprintf(`for c in range(%d):
    print(api.everything.echo(message="%s-c" + str(c)))
print(api.everything.get_sum(a=%d, b=%d))
`, echoCalls, tag, 1000+i, round) // a is never 99: testHooks makes that a wait
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
			if err != nil {
				errs <- fmt.Errorf("session %d: %v", i, err)
				return
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			// Exactly this session's values, in order, and nothing else.
			var want strings.Builder
			for c := range echoCalls {
				fmt.Fprintf(&want, "Echo: %s-c%d\n", tag, c)
			}
			fmt.Fprintf(&want, "The sum of %d and %d is %d.\n[%d tool calls]\n", 1000+i, round, 1000+i+round, echoCalls+1)
			got := text.String()
			// The notes testHooks adds come first; they are not the point.
			for strings.HasPrefix(got, "NOTE: ") {
				_, got, _ = strings.Cut(got, "\n")
			}
			got = strings.TrimPrefix(got, "\n")
			if res.IsError || got != want.String() {
				errs <- fmt.Errorf("session %d: run_code:\n%s\nwant:\n%s", i, text.String(), want.String())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	var sent []string
	for i := range sessions {
		for c := range echoCalls {
			sent = append(sent, fmt.Sprintf("s%03d-r%d-c%d", i, round, c))
		}
	}
	return sent
}

// checkAudit checks that the upstream received each message once, and that
// the audit log has an event for it (an intent and an outcome, or one
// event) in the session that sent it.
func (rig *loadRig) checkAudit(tb testing.TB, sessions []*mcp.ClientSession, sent []string) {
	tb.Helper()
	rig.rec.mu.Lock()
	received := len(rig.rec.messages)
	for _, m := range sent {
		if n := rig.rec.messages[m]; n != 1 {
			tb.Errorf("upstream received %q %d times", m, n)
		}
	}
	rig.rec.mu.Unlock()
	if received != len(sent) {
		tb.Errorf("upstream received %d distinct messages, %d were sent", received, len(sent))
	}
	file, err := os.Open(rig.f.auditAt)
	if err != nil {
		tb.Fatal(err)
	}
	defer file.Close()
	events := map[string]int{}
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev runtime.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			tb.Fatal(err)
		}
		var args map[string]any
		if ev.Args != nil && ev.Args.Value != nil {
			_ = json.Unmarshal(ev.Args.Value, &args)
		}
		msg, _ := args["message"].(string)
		if (ev.Kind != "call" && ev.Kind != "intent") || !strings.HasSuffix(ev.Tool, "echo") || msg == "" {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(msg, "s%03d-", &i); err != nil || i >= len(sessions) || ev.Session != sessions[i].ID() {
			tb.Errorf("audit event for %q in session %q", msg, ev.Session)
		}
		events[msg]++
	}
	for _, m := range sent {
		if events[m] < 1 {
			tb.Errorf("no audit event for the call with %q", m)
		}
	}
}

// TestHTTPConcurrentSessionsNoCrossTalk is the load benchmark's check at a
// size go test runs every time.
func TestHTTPConcurrentSessionsNoCrossTalk(t *testing.T) {
	rig := newLoadRig(t, 2)
	sessions := rig.open(t, 16)
	var sent []string
	for r := range 2 {
		sent = append(sent, rig.round(t, sessions, r)...)
	}
	rig.checkAudit(t, sessions, sent)
}

// BenchmarkHTTP128Sessions: 128 sessions over authenticated HTTP, each
// running a program of four tool calls at once, per round. ns/program is
// the round's time divided by 128: set against BenchmarkHTTP1Session's it
// says how well concurrent sessions share the gateway.
func BenchmarkHTTP128Sessions(b *testing.B) { benchSessions(b, 128) }

// BenchmarkHTTP1Session is the baseline: one session, one program a round.
func BenchmarkHTTP1Session(b *testing.B) { benchSessions(b, 1) }

func benchSessions(b *testing.B, n int) {
	rig := newLoadRig(b, 2)
	sessions := rig.open(b, n)
	var sent []string
	start := time.Now()
	rounds := 0
	for b.Loop() {
		sent = append(sent, rig.round(b, sessions, rounds)...)
		rounds++
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(rounds*n), "ns/program")
	b.ReportMetric(float64(rounds*n*(echoCalls+1))/elapsed.Seconds(), "calls/s")
	b.StopTimer()
	rig.checkAudit(b, sessions, sent)
}

// BenchmarkHTTPUnclosedSessionsMemory opens 5,000 sessions that are never
// closed (an initialize each, then the client goes away) and reports the
// heap they hold while live and after their idle TTL has closed them.
// Run it with -benchtime=1x.
func BenchmarkHTTPUnclosedSessionsMemory(b *testing.B) {
	const n, ttl = 5000, 10 * time.Second
	f := newFixture(b, false, nil)
	hs := serveHTTP(b, f, gateway.HTTPOptions{Tokens: tokensFile(b, writeTokens(b, tokenA)), IdleTTL: ttl})
	heap := func() float64 {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		base := heap()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					if resp, body := post(b, hs.URL, tokenA, "", initBody); resp.StatusCode != 200 {
						b.Errorf("initialize: %d %q", resp.StatusCode, body)
						return
					}
				}
			})
		}
		wg.Wait()
		live := heap()
		if m, _ := f.srv.LiveSessions(); time.Since(start) < ttl && m != n {
			b.Fatalf("%d sessions live, want %d", m, n)
		}
		waitSessions(b, f.srv)
		b.ReportMetric(live-base, "MB-live")
		b.ReportMetric(heap()-base, "MB-after-expiry")
	}
}
