package gateway_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/runtime"
)

// TestReadyCheckFailingNamedNotExplained: a failing readiness check (the
// store) makes /readyz answer 503 naming the check, never its error (which
// may hold a host or a password); /healthz still answers ok.
func TestReadyCheckFailingNamedNotExplained(t *testing.T) {
	f := newFixture(t, false, nil)
	down := true
	f.srv.AddReadyCheck("store", func(context.Context) error {
		if down {
			return errors.New("dial tcp db.internal:5432: password=hunter2 refused")
		}
		return nil
	})
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA))})
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz"); code != 503 || body != "not ready: store\n" {
		t.Fatalf("/readyz with the store down: %d %q", code, body)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	down = false
	if code, body := get("/readyz"); code != 200 || body != "ready\n" {
		t.Fatalf("/readyz with the store up: %d %q", code, body)
	}
	f.srv.Drain()
	if code, body := get("/readyz"); code != 503 || body != "not ready: draining\n" {
		t.Fatalf("/readyz draining: %d %q", code, body)
	}
}

// TestReadyzWhileStartingNotReady: the HTTP listener answers from the
// moment it is taken: while the runtime (upstreams, workers) is still
// starting, /healthz says ok and /readyz (and MCP) 503 "not ready:
// starting"; once Open returns, Serve serves MCP and /readyz is ready.
func TestReadyzWhileStartingNotReady(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f := newFixture(t, false, nil)
	release := make(chan struct{})
	open := func(context.Context, func(*runtime.Config)) (*runtime.Runtime, error) {
		<-release
		return f.rt, nil
	}
	type opened struct {
		g   *gateway.Gateway
		err error
	}
	done := make(chan opened, 1)
	go func() {
		g, err := gateway.Open(context.Background(), open, gateway.Options{Addr: addr, HTTP: gateway.HTTPOptions{NoAuth: true}, AuditLog: "off", NoPins: true})
		done <- opened{g, err}
	}()
	get := func(path string) (int, string) {
		t.Helper()
		for {
			resp, err := http.Get("http://" + addr + path)
			if err != nil {
				continue // not listening yet
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz while starting: %d %q", code, body)
	}
	for _, path := range []string{"/readyz", "/mcp"} {
		if code, body := get(path); code != 503 || body != "not ready: starting\n" {
			t.Fatalf("%s while starting: %d %q", path, code, body)
		}
	}
	close(release)
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- o.g.Serve(ctx, nil, nil) }()
	for {
		if code, body := get("/readyz"); code == 200 {
			if body != "ready\n" {
				t.Fatalf("/readyz: %q", body)
			}
			break
		}
	}
	cs, err := connectHTTP(t, "http://"+addr+"/mcp", "")
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
