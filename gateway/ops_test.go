package gateway_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
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
