package upstream

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
)

// hits records what each path of a server received.
type hits struct {
	mu  sync.Mutex
	got map[string]seen
}

func (h *hits) record(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.got == nil {
		h.got = map[string]seen{}
	}
	h.got[r.URL.Path] = seen{r.Method, r.RequestURI, r.Header.Clone(), ""}
}

func (h *hits) at(path string) (seen, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.got[path]
	return s, ok
}

func TestQueryKeyNotInTransportError(t *testing.T) {
	// The server hangs up without answering: the url.Error names the whole
	// URL, query key included.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer srv.Close()
	t.Setenv("UP_QKEY", "qk-Secret/1")
	h, err := NewHTTP(HTTPConfig{BaseURL: srv.URL, Auth: &Auth{Type: "apiKey", TokenEnv: "UP_QKEY", In: "query", Name: "key"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(ctxT(t, 10*time.Second), httpTool("GET", "/a", "", false), nil)
	want := `GET /a: Get "` + srv.URL + `/a?key=[redacted]": EOF`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestErrorBodyEchoingKeyRedacted(t *testing.T) {
	rec := newRecorder(t)
	rec.status, rec.body = 401, `{"message":"key tok-echo-9 is not valid","key":"tok-echo-9"}`
	t.Setenv("UP_TOKEN", "tok-echo-9")
	h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL, Auth: &Auth{Type: "bearer", TokenEnv: "UP_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, h, ctxT(t, 10*time.Second), httpTool("GET", "/a", "", false), nil)
	if r.Message != "key [redacted] is not valid" || jsonOf(t, r.Value) != `{"key":"[redacted]","message":"key [redacted] is not valid"}` {
		t.Fatalf("result = %#v", r)
	}
}

// redirectPair is an API server whose /away redirects to another origin
// and /here to its own /landed, and a foreign server that records what
// reached it.
func redirectPair(t *testing.T) (api, foreign *httptest.Server, apiHits, foreignHits *hits) {
	apiHits, foreignHits = &hits{}, &hits{}
	foreign = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.record(r)
		io.WriteString(w, `{"where":"foreign"}`)
	}))
	t.Cleanup(foreign.Close)
	api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apiHits.record(r)
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, foreign.URL+"/landing", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/landed", http.StatusTemporaryRedirect)
		default:
			io.WriteString(w, `{"where":"api"}`)
		}
	}))
	t.Cleanup(api.Close)
	return
}

func TestHeaderKeyNotResentOffOrigin(t *testing.T) {
	for _, a := range []Auth{
		{Type: "apiKey", TokenEnv: "UP_KEY", Name: "X-API-Key"},
		{Type: "bearer", TokenEnv: "UP_KEY"},
		{Type: "apiKey", TokenEnv: "UP_KEY", In: "cookie", Name: "sid"},
	} {
		api, _, apiHits, foreignHits := redirectPair(t)
		t.Setenv("UP_KEY", "hk-secret-2")
		a := a
		h, err := NewHTTP(HTTPConfig{BaseURL: api.URL, Auth: &a})
		if err != nil {
			t.Fatal(err)
		}
		ctx := ctxT(t, 10*time.Second)
		r := call(t, h, ctx, httpTool("GET", "/away", "", false), nil)
		got, ok := foreignHits.at("/landing")
		if !ok || jsonOf(t, r.Value) != `{"where":"foreign"}` {
			t.Fatalf("%s: the redirect was not followed: %#v", a.Type, r)
		}
		for k, vs := range got.Header {
			for _, v := range vs {
				if strings.Contains(v, "hk-secret-2") || k == "Referer" || k == "Authorization" || k == "Cookie" {
					t.Errorf("%s %s: the other origin got %s: %s", a.Type, a.In, k, v)
				}
			}
		}
		// On its own origin the credentials follow the redirect.
		call(t, h, ctx, httpTool("GET", "/here", "", false), nil)
		landed, _ := apiHits.at("/landed")
		all := ""
		for k, vs := range landed.Header {
			all += k + ": " + strings.Join(vs, ",") + "\n"
		}
		if !strings.Contains(all, "hk-secret-2") || landed.Header.Get("Referer") != "" {
			t.Errorf("%s: same-origin redirect headers:\n%s", a.Type, all)
		}
	}
}

func TestQueryKeyNotLeakedThroughReferer(t *testing.T) {
	api, _, apiHits, foreignHits := redirectPair(t)
	t.Setenv("UP_QKEY", "qk-secret-3")
	h, err := NewHTTP(HTTPConfig{BaseURL: api.URL, Auth: &Auth{Type: "apiKey", TokenEnv: "UP_QKEY", In: "query", Name: "key"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, 10*time.Second)
	call(t, h, ctx, httpTool("GET", "/away", "", false), nil)
	got, ok := foreignHits.at("/landing")
	if !ok || got.URI != "/landing" || got.Header.Get("Referer") != "" {
		t.Fatalf("foreign saw %+v", got)
	}
	// Same origin: the key goes on again, still no Referer.
	call(t, h, ctx, httpTool("GET", "/here", "", false), nil)
	landed, _ := apiHits.at("/landed")
	if landed.URI != "/landed?key=qk-secret-3" || landed.Header.Get("Referer") != "" {
		t.Fatalf("landed = %+v", landed)
	}
}

func TestPathParamDotDotRefused(t *testing.T) {
	rec := newRecorder(t)
	h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, 10*time.Second)
	tl := httpTool("GET", "/files/{name}", "", false, pdef{"name", ir.InPath, "", nil})
	for _, v := range []string{"..", "."} {
		_, err := h.Call(ctx, tl, map[string]any{"name": v})
		want := `op: path parameter name: "` + v + `" would make a "." or ".." path segment, which names another route; refused`
		if err == nil || err.Error() != want {
			t.Errorf("%q: err = %v\nwant %s", v, err, want)
		}
	}
	// A label-style value "." would also make "..".
	label := httpTool("GET", "/files/{name}", "", false, pdef{"name", ir.InPath, "label", nil})
	if _, err := h.Call(ctx, label, map[string]any{"name": "."}); err == nil {
		t.Error("label-style . was sent")
	}
	// Slashes and dots inside a value stay in one segment.
	for v, uri := range map[string]string{"../admin": "/v1/files/..%2Fadmin", "a/b": "/v1/files/a%2Fb", "...": "/v1/files/...", "%2e%2e": "/v1/files/%252e%252e"} {
		call(t, h, ctx, tl, map[string]any{"name": v})
		if rec.last.URI != uri {
			t.Errorf("%q: sent %s, want %s", v, rec.last.URI, uri)
		}
	}
}

func TestHTTPReplyOverCapRefused(t *testing.T) {
	big := strings.Repeat("x", 12<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Header().Set("Content-Type", "application/json")
			w.(http.Flusher).Flush() // no Content-Length
			io.WriteString(w, `["`+strings.Repeat("y", 3000)+`"]`)
			return
		}
		io.WriteString(w, `"`+big+`"`)
	}))
	defer srv.Close()
	ctx := ctxT(t, 10*time.Second)
	h, err := NewHTTP(HTTPConfig{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(ctx, httpTool("GET", "/big", "", false), nil)
	if err == nil || err.Error() != "GET /big: the reply is larger than the 8 MiB cap (runtime.max_reply); refused" {
		t.Fatalf("err = %v", err)
	}
	h, err = NewHTTP(HTTPConfig{BaseURL: srv.URL, MaxResponse: 2 << 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(ctx, httpTool("GET", "/chunked", "", false), nil)
	if err == nil || err.Error() != "GET /chunked: the reply is larger than the 2 KiB cap (runtime.max_reply); refused" {
		t.Fatalf("err = %v", err)
	}
}

func TestRedactorForms(t *testing.T) {
	r := NewRedactor("a b/c+d", "abc", "")
	got := r.String("raw a b/c+d, query a+b%2Fc%2Bd, path a%20b%2Fc+d, short abc")
	if got != "raw [redacted], query [redacted], path [redacted], short abc" {
		t.Fatalf("got %q", got)
	}
	v := r.Value(map[string]any{"a b/c+d": []any{"x a b/c+d", json.Number("1")}})
	if jsonOf(t, v) != `{"[redacted]":["x [redacted]",1]}` {
		t.Fatalf("value %s", jsonOf(t, v))
	}
	var nilR *Redactor
	if nilR.String("a b/c+d") != "a b/c+d" {
		t.Fatal("nil redactor changed text")
	}
}
