package upstream

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/internal/testmcp"
	"github.com/codemode-dev/codemode/manifest"
)

// agentSide is what one agent's client got of its direct call.
type agentSide struct {
	mu   sync.Mutex
	logs []string
	asks []string
}

func (a *agentSide) forward(tag string) *Forward {
	return &Forward{
		Log: func(_ context.Context, p *mcp.LoggingMessageParams) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.logs = append(a.logs, fmt.Sprint(p.Data))
		},
		Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.asks = append(a.asks, p.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "answered by " + tag}}, nil
		},
	}
}

// TestForwardConcurrentCallsLogsCrossed pins direct mode's routing of what
// an upstream sends during a call: log messages and elicitation requests
// went to the call that started last, so with two calls in flight, call
// A's log lines and question reached the client of call B. Now each goes
// to the call the server relates it to (over streamable HTTP, the call
// whose stream it came on): each agent gets its own lines and question,
// and answers only its own.
func TestForwardConcurrentCallsLogsCrossed(t *testing.T) {
	m := NewMCPURL(testmcp.PairHTTP(t), nil, nil)
	defer m.Close()
	m.EnableForwarding()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	work := &manifest.Tool{Wire: "work"}
	sides := map[string]*agentSide{"A": {}, "B": {}}
	results := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for tag, side := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.Call(WithForward(ctx, side.forward(tag)), work, map[string]any{"tag": tag})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				results[tag] = "error: " + err.Error()
				return
			}
			results[tag] = fmt.Sprint(res.Value)
		}()
	}
	wg.Wait()
	for tag, side := range sides {
		side.mu.Lock()
		logs, asks := slices.Clone(side.logs), slices.Clone(side.asks)
		side.mu.Unlock()
		slices.Sort(logs)
		want := tag + " asking|" + tag + " started"
		if got := strings.Join(logs, "|"); got != want {
			t.Errorf("agent %s got the log lines %q, want %q", tag, got, want)
		}
		if got := strings.Join(asks, "|"); got != "question for "+tag {
			t.Errorf("agent %s was asked %q", tag, got)
		}
		if want := tag + ": answered by " + tag; results[tag] != want {
			t.Errorf("call %s: %s, want %s", tag, results[tag], want)
		}
	}
}

// TestUnnamedMessageRoutedToNewestCall pins the rule for what a server
// sends without naming its call (stdio, the standalone stream): it went to
// the call that started last. Now it goes to the one call in flight; with
// several, a log message goes to none, and a request waits until all but
// one of them have been answered (the one left is the one waiting for it),
// refused if one ends unanswered; a named one goes to its call, and the
// name is taken out before it is forwarded.
func TestUnnamedMessageRoutedToNewestCall(t *testing.T) {
	var fs forwards
	ctx := context.Background()
	a, b := &Forward{}, &Forward{}
	tokA, endA := fs.begin(a)
	if f, c := fs.route(nil); f != a || c != nil {
		t.Fatalf("one call in flight: %p, %v", f, c)
	}
	tokB, endB := fs.begin(b)
	if f, c := fs.route(map[string]any{}); f != nil || len(c) != 2 {
		t.Fatalf("two calls in flight, none named: %p, %v", f, c)
	}
	meta := map[string]any{callMetaKey: tokA, "other": 1}
	if f, _ := fs.route(meta); f != a || len(meta) != 1 {
		t.Fatalf("named A: %p, meta %v", f, meta)
	}
	if f, _ := fs.route(map[string]any{callMetaKey: tokB}); f != b {
		t.Fatalf("named B: %p", f)
	}
	// A request naming neither waits until A is answered: it is B's.
	_, candidates := fs.route(nil)
	got := make(chan *Forward, 1)
	go func() {
		a, ok := fs.settle(ctx, candidates)
		if !ok {
			got <- nil
			return
		}
		got <- a.f
	}()
	select {
	case f := <-got:
		t.Fatalf("the request was routed while two calls were in flight: %p", f)
	default:
	}
	endA(true)
	if f := <-got; f != b {
		t.Fatalf("after A was answered: %p, want B", f)
	}
	if f, _ := fs.route(map[string]any{callMetaKey: tokA}); f != nil {
		t.Fatalf("named A after it ended: %p", f)
	}
	// A program's call beside B, which ends unanswered: nobody's.
	_, endP := fs.begin(nil)
	f, candidates := fs.route(nil)
	if f != nil || len(candidates) != 2 {
		t.Fatalf("a program's call beside B: %p, %v", f, candidates)
	}
	endP(false)
	if a, ok := fs.settle(ctx, candidates); ok {
		t.Fatalf("a candidate ended unanswered, and the request went to %p", a.f)
	}
	endB(true)
}
