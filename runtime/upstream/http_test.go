package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// seen is one request as the server received it.
type seen struct {
	Method, URI string
	Header      http.Header
	Body        string
}

// recorder is an httptest server that records each request and answers
// with the status, content type and body the test sets.
type recorder struct {
	srv    *httptest.Server
	last   seen
	status int
	ctype  string
	body   string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{status: 200, ctype: "application/json", body: `{"ok":true}`}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.last = seen{req.Method, req.RequestURI, req.Header.Clone(), string(b)}
		if r.ctype != "" {
			w.Header().Set("Content-Type", r.ctype)
		}
		w.WriteHeader(r.status)
		io.WriteString(w, r.body)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func bp(b bool) *bool { return &b }

type pdef struct {
	wire    string
	in      ir.Location
	style   string
	explode *bool
}

func httpTool(method, path, bodyType string, spread bool, params ...pdef) *manifest.Tool {
	t := &manifest.Tool{Wire: "op", HTTP: &ir.HTTPOp{Method: method, Path: path, BodyType: bodyType, BodySpread: spread}}
	for _, p := range params {
		t.Params = append(t.Params, manifest.Param{Arg: p.wire, Wire: ir.WireName(p.wire), In: p.in, Style: p.style, Explode: p.explode})
	}
	return t
}

// requiredBody marks t's request body as required.
func requiredBody(t *manifest.Tool) *manifest.Tool {
	t.HTTP.BodyRequired = true
	return t
}

func TestHTTPRequestShapes(t *testing.T) {
	rec := newRecorder(t)
	h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL + "/api/", Client: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	arr := []any{"a b", "c,d", json.Number("3")}
	obj := map[string]any{"role": "admin", "first name": "Al"}
	cases := []struct {
		name   string
		tool   *manifest.Tool
		args   map[string]any
		uri    string
		body   string
		ctype  string
		header map[string]string
	}{
		{name: "path simple escaped", tool: httpTool("GET", "/users/{id}/files/{path}", "", false, pdef{"id", ir.InPath, "", nil}, pdef{"path", ir.InPath, "", nil}),
			args: map[string]any{"id": json.Number("42"), "path": "a/b c?d"}, uri: "/api/users/42/files/a%2Fb%20c%3Fd"},
		{name: "path simple array", tool: httpTool("GET", "/x/{ids}", "", false, pdef{"ids", ir.InPath, "simple", nil}),
			args: map[string]any{"ids": arr}, uri: "/api/x/a%20b,c%2Cd,3"},
		{name: "path simple object", tool: httpTool("GET", "/x/{o}", "", false, pdef{"o", ir.InPath, "simple", nil}),
			args: map[string]any{"o": obj}, uri: "/api/x/first%20name,Al,role,admin"},
		{name: "path simple object explode", tool: httpTool("GET", "/x/{o}", "", false, pdef{"o", ir.InPath, "simple", bp(true)}),
			args: map[string]any{"o": obj}, uri: "/api/x/first%20name=Al,role=admin"},
		{name: "path label", tool: httpTool("GET", "/x/{v}", "", false, pdef{"v", ir.InPath, "label", nil}),
			args: map[string]any{"v": []any{"a", "b"}}, uri: "/api/x/.a,b"},
		{name: "path label explode", tool: httpTool("GET", "/x/{v}", "", false, pdef{"v", ir.InPath, "label", bp(true)}),
			args: map[string]any{"v": []any{"a", "b"}}, uri: "/api/x/.a.b"},
		{name: "path matrix scalar", tool: httpTool("GET", "/x/{v}", "", false, pdef{"v", ir.InPath, "matrix", nil}),
			args: map[string]any{"v": json.Number("5")}, uri: "/api/x/;v=5"},
		{name: "path matrix array explode", tool: httpTool("GET", "/x/{v}", "", false, pdef{"v", ir.InPath, "matrix", bp(true)}),
			args: map[string]any{"v": []any{"a", "b"}}, uri: "/api/x/;v=a;v=b"},
		{name: "path matrix object", tool: httpTool("GET", "/x/{v}", "", false, pdef{"v", ir.InPath, "matrix", bp(false)}),
			args: map[string]any{"v": map[string]any{"r": "1", "g": "2"}}, uri: "/api/x/;v=g,2,r,1"},
		{name: "query form explode (default)", tool: httpTool("GET", "/q", "", false, pdef{"tag", ir.InQuery, "", nil}, pdef{"limit", ir.InQuery, "", nil}, pdef{"absent", ir.InQuery, "", nil}),
			args: map[string]any{"tag": arr, "limit": json.Number("10")}, uri: "/api/q?tag=a+b&tag=c%2Cd&tag=3&limit=10"},
		{name: "query form no explode", tool: httpTool("GET", "/q", "", false, pdef{"tag", ir.InQuery, "form", bp(false)}),
			args: map[string]any{"tag": arr}, uri: "/api/q?tag=a+b,c%2Cd,3"},
		{name: "query form object explode", tool: httpTool("GET", "/q", "", false, pdef{"f", ir.InQuery, "form", nil}),
			args: map[string]any{"f": obj}, uri: "/api/q?first+name=Al&role=admin"},
		{name: "query form object no explode", tool: httpTool("GET", "/q", "", false, pdef{"f", ir.InQuery, "form", bp(false)}),
			args: map[string]any{"f": obj}, uri: "/api/q?f=first+name,Al,role,admin"},
		{name: "query deepObject", tool: httpTool("GET", "/q", "", false, pdef{"filter", ir.InQuery, "deepObject", bp(true)}),
			args: map[string]any{"filter": map[string]any{"role": "admin", "age": map[string]any{"gt": json.Number("30")}}}, uri: "/api/q?filter[age][gt]=30&filter[role]=admin"},
		{name: "query pipeDelimited", tool: httpTool("GET", "/q", "", false, pdef{"ids", ir.InQuery, "pipeDelimited", nil}),
			args: map[string]any{"ids": []any{json.Number("1"), json.Number("2")}}, uri: "/api/q?ids=1|2"},
		{name: "query spaceDelimited", tool: httpTool("GET", "/q", "", false, pdef{"ids", ir.InQuery, "spaceDelimited", bp(false)}),
			args: map[string]any{"ids": []any{json.Number("1"), json.Number("2")}}, uri: "/api/q?ids=1%202"},
		{name: "query bool", tool: httpTool("GET", "/q", "", false, pdef{"all", ir.InQuery, "", nil}),
			args: map[string]any{"all": true}, uri: "/api/q?all=true"},
		{name: "header and cookie", tool: httpTool("GET", "/h", "", false, pdef{"X-Trace", ir.InHeader, "", nil}, pdef{"X-List", ir.InHeader, "", nil}, pdef{"session", ir.InCookie, "", nil}, pdef{"lang", ir.InCookie, "", nil}),
			args: map[string]any{"X-Trace": "t 1", "X-List": []any{"a", "b"}, "session": "abc", "lang": "en"}, uri: "/api/h",
			header: map[string]string{"X-Trace": "t 1", "X-List": "a,b", "Cookie": "session=abc; lang=en"}},
		{name: "json body spread", tool: httpTool("POST", "/pets", "application/json", true, pdef{"name", ir.InBody, "", nil}, pdef{"tags", ir.InBody, "", nil}, pdef{"age", ir.InBody, "", nil}, pdef{"dry", ir.InQuery, "", nil}),
			args: map[string]any{"name": "Rex <1>", "tags": []any{"a"}, "dry": false}, uri: "/api/pets?dry=false",
			body: `{"name":"Rex <1>","tags":["a"]}`, ctype: "application/json"},
		{name: "json body spread empty, body optional", tool: httpTool("POST", "/pets", "application/json", true, pdef{"name", ir.InBody, "", nil}),
			args: map[string]any{}, uri: "/api/pets", body: ``, ctype: ""},
		{name: "json body spread empty, body required", tool: requiredBody(httpTool("POST", "/pets", "application/json", true, pdef{"name", ir.InBody, "", nil})),
			args: map[string]any{}, uri: "/api/pets", body: `{}`, ctype: "application/json"},
		{name: "json body whole", tool: httpTool("PUT", "/pets", "application/merge-patch+json", false, pdef{"body", ir.InBodyWhole, "", nil}),
			args: map[string]any{"body": []any{json.Number("1.50"), "x"}}, uri: "/api/pets",
			body: `[1.50,"x"]`, ctype: "application/merge-patch+json"},
		{name: "form body", tool: httpTool("POST", "/f", "application/x-www-form-urlencoded", true, pdef{"name", ir.InBody, "", nil}, pdef{"ids", ir.InBody, "", nil}, pdef{"meta", ir.InBody, "", nil}),
			args: map[string]any{"name": "a&b=c d", "ids": []any{json.Number("1"), json.Number("2")}, "meta": map[string]any{"k": "v"}}, uri: "/api/f",
			body: `name=a%26b%3Dc+d&ids=1&ids=2&meta=%7B%22k%22%3A%22v%22%7D`, ctype: "application/x-www-form-urlencoded"},
		{name: "text body", tool: httpTool("POST", "/t", "text/plain", false, pdef{"body", ir.InBodyWhole, "", nil}),
			args: map[string]any{"body": "hello\n"}, uri: "/api/t", body: "hello\n", ctype: "text/plain"},
		{name: "no body", tool: httpTool("DELETE", "/d/{id}", "", false, pdef{"id", ir.InPath, "", nil}),
			args: map[string]any{"id": "x"}, uri: "/api/d/x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := call(t, h, ctxT(t, 10*time.Second), c.tool, c.args)
			if r.IsError || jsonOf(t, r.Value) != `{"ok":true}` || r.Status != 200 {
				t.Fatalf("result %#v", r)
			}
			got := rec.last
			if got.Method != c.tool.HTTP.Method || got.URI != c.uri || got.Body != c.body {
				t.Fatalf("got %s %s body %q\nwant %s %s body %q", got.Method, got.URI, got.Body, c.tool.HTTP.Method, c.uri, c.body)
			}
			if ct := got.Header.Get("Content-Type"); ct != c.ctype {
				t.Errorf("Content-Type %q, want %q", ct, c.ctype)
			}
			if a := got.Header.Get("Accept"); a != "application/json, */*;q=0.1" {
				t.Errorf("Accept %q", a)
			}
			for k, v := range c.header {
				if got.Header.Get(k) != v || len(got.Header.Values(k)) != 1 {
					t.Errorf("header %s = %q, want %q", k, got.Header.Values(k), v)
				}
			}
		})
	}
}

func TestHTTPMultipart(t *testing.T) {
	rec := newRecorder(t)
	h, err := NewHTTP(HTTPConfig{Servers: []string{rec.srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	tl := httpTool("POST", "/up", "multipart/form-data", true, pdef{"note", ir.InBody, "", nil}, pdef{"file", ir.InBody, "", nil}, pdef{"meta", ir.InBody, "", nil})
	tl.Input = ir.Schema{"properties": map[string]any{"file": map[string]any{"type": "string", "format": "binary"}}}
	call(t, h, ctxT(t, 10*time.Second), tl, map[string]any{"note": "hi", "file": "raw bytes\x00", "meta": map[string]any{"a": json.Number("1")}})
	mt, params, err := mime.ParseMediaType(rec.last.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q", rec.last.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(strings.NewReader(rec.last.Body), params["boundary"])
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got = append(got, fmt.Sprintf("%s|%s|%s|%q", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), b))
	}
	want := []string{`note|||"hi"`, `file|file|application/octet-stream|"raw bytes\x00"`, `meta||application/json|"{\"a\":1}"`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parts %q", got)
	}
}

func TestHTTPAuthKinds(t *testing.T) {
	rec := newRecorder(t)
	t.Setenv("UP_TOKEN", "tok-1")
	t.Setenv("UP_USER", "ada")
	t.Setenv("UP_PASS", "p:w")
	tl := httpTool("GET", "/a", "", false, pdef{"q", ir.InQuery, "", nil})
	schemes := []ir.SecurityScheme{{Name: "key", Type: "apiKey", In: "header", Header: "X-Spec-Key"}}
	cases := []struct {
		auth   Auth
		uri    string
		header string
		value  string
	}{
		{Auth{Type: "bearer", TokenEnv: "UP_TOKEN"}, "/a?q=1", "Authorization", "Bearer tok-1"},
		{Auth{Type: "basic", UserEnv: "UP_USER", PasswordEnv: "UP_PASS"}, "/a?q=1", "Authorization", "Basic YWRhOnA6dw=="},
		{Auth{Type: "apiKey", TokenEnv: "UP_TOKEN", Name: "X-Key"}, "/a?q=1", "X-Key", "tok-1"},
		{Auth{Type: "apiKey", TokenEnv: "UP_TOKEN", In: "query", Name: "api key"}, "/a?q=1&api+key=tok-1", "", ""},
		{Auth{Type: "apiKey", TokenEnv: "UP_TOKEN", In: "cookie", Name: "sid"}, "/a?q=1", "Cookie", "sid=tok-1"},
		{Auth{Type: "apiKey", TokenEnv: "UP_TOKEN"}, "/a?q=1", "X-Spec-Key", "tok-1"}, // name from the spec's scheme
	}
	for _, c := range cases {
		a := c.auth
		h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL, Auth: &a, Security: schemes})
		if err != nil {
			t.Fatal(err)
		}
		call(t, h, ctxT(t, 10*time.Second), tl, map[string]any{"q": json.Number("1")})
		if rec.last.URI != c.uri {
			t.Errorf("%+v: uri %s, want %s", a, rec.last.URI, c.uri)
		}
		if c.header != "" && rec.last.Header.Get(c.header) != c.value {
			t.Errorf("%+v: %s = %q, want %q", a, c.header, rec.last.Header.Get(c.header), c.value)
		}
		if c.header != "Authorization" && rec.last.Header.Get("Authorization") != "" {
			t.Errorf("%+v: unexpected Authorization", a)
		}
	}
}

func TestHTTPConfigErrors(t *testing.T) {
	cases := []struct {
		cfg  HTTPConfig
		want string
	}{
		{HTTPConfig{Servers: []string{"/api/v3"}}, `the spec's server URL "/api/v3" is relative; set base_url in the pack file to the API's absolute URL`},
		{HTTPConfig{}, "no server URL: the spec lists no servers; set base_url in the pack file"},
		{HTTPConfig{BaseURL: "api.example.test/v1"}, `base_url "api.example.test/v1" is not an absolute URL (want scheme://host[/path])`},
		{HTTPConfig{Servers: []string{"https://{region}.example.test"}}, `the spec's first server "https://{region}.example.test" has an unfilled {variable}; set base_url in the pack file`},
		{HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "bearer", TokenEnv: "CODEMODE_SURELY_UNSET_TOKEN"}}, "auth: environment variable CODEMODE_SURELY_UNSET_TOKEN (token_env) is not set"},
		{HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "basic", UserEnv: "HOME", PasswordEnv: "CODEMODE_SURELY_UNSET_PW"}}, "auth: environment variable CODEMODE_SURELY_UNSET_PW (password_env) is not set"},
		{HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "bearer"}}, "auth: token_env is not set in the pack file"},
		{HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "oauth2", TokenEnv: "HOME"}}, `auth: type "oauth2": want bearer, basic or apiKey`},
		{HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "apiKey", TokenEnv: "HOME"}}, "auth: apiKey needs a name (the spec has 0 apiKey schemes to take it from)"},
	}
	for _, c := range cases {
		_, err := NewHTTP(c.cfg)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: err = %v\nwant %s", c.cfg, err, c.want)
		}
	}
	// base_url wins over a relative server.
	if _, err := NewHTTP(HTTPConfig{BaseURL: "http://x.test/v3", Servers: []string{"/api/v3"}}); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPResponses(t *testing.T) {
	rec := newRecorder(t)
	h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tl := httpTool("GET", "/r", "", false)
	ctx := ctxT(t, 10*time.Second)
	long := strings.Repeat("é", 1500)
	cases := []struct {
		status      int
		ctype, body string
		value       string // JSON of Value
		isErr       bool
		message     string
	}{
		{200, "application/json", `{"n": 12345678901234567890}`, `{"n":12345678901234567890}`, false, ""},
		{200, "text/plain", `[1,2]`, `[1,2]`, false, ""}, // parses as JSON
		{200, "text/csv", "a,b\n1,2\n", `"a,b\n1,2\n"`, false, ""},
		{200, "application/json", `not json`, `"not json"`, false, ""},
		{204, "", ``, `null`, false, ""},
		{404, "application/json", `{"message":"Not Found","documentation_url":"x"}`, `{"documentation_url":"x","message":"Not Found"}`, true, "Not Found"},
		{400, "application/json", `{"error":{"code":1,"message":"bad limit"}}`, `{"error":{"code":1,"message":"bad limit"}}`, true, "bad limit"},
		{401, "application/json", `{"error":"invalid_token","error_description":"expired"}`, `{"error":"invalid_token","error_description":"expired"}`, true, "invalid_token: expired"},
		{422, "application/problem+json", `{"title":"Invalid request","detail":"name is required"}`, `{"detail":"name is required","title":"Invalid request"}`, true, "Invalid request: name is required"},
		{500, "text/plain", "boom\n", `"boom\n"`, true, "boom"},
		{503, "", "", `null`, true, "503 Service Unavailable"},
		{502, "text/plain", long, jsonOf(t, long), true, strings.Repeat("é", 1000) + "… (truncated)"},
	}
	for _, c := range cases {
		rec.status, rec.ctype, rec.body = c.status, c.ctype, c.body
		r := call(t, h, ctx, tl, nil)
		if r.Status != c.status || r.IsError != c.isErr || r.Message != c.message || jsonOf(t, r.Value) != c.value || r.Meta != nil {
			t.Errorf("%d %s %.40q: got %#v (value %s)", c.status, c.ctype, c.body, r, jsonOf(t, r.Value))
		}
	}
}

func TestHTTPHangRespectsContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	h, err := NewHTTP(HTTPConfig{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = h.Call(ctx, httpTool("GET", "/slow", "", false), nil)
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestHTTPMissingPathParam(t *testing.T) {
	h, err := NewHTTP(HTTPConfig{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(context.Background(), httpTool("GET", "/pets/{petId}", "", false, pdef{"petId", ir.InPath, "", nil}), map[string]any{})
	if err == nil || err.Error() != "op: path parameter petId is missing" {
		t.Fatalf("err = %v", err)
	}
}

// startPrism mocks spec with Prism's static examples and returns its URL.
func startPrism(t *testing.T, spec string) string { return testpeer.StartPrism(t, spec) }

func corpusFile(t *testing.T, rel string) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrismPetstore(t *testing.T) {
	base := startPrism(t, corpusFile(t, "openapi/petstore-v3.json"))
	ctx := ctxT(t, 60*time.Second)
	t.Setenv("PETSTORE_TOKEN", "oauth-token")
	t.Setenv("PETSTORE_API_KEY", "special-key")
	// The spec's own servers entry; base_url points at the mock.
	servers := []string{"http://petstore.swagger.io/v2"}
	schemes := []ir.SecurityScheme{{Name: "petstore_auth", Type: "oauth2"}, {Name: "api_key", Type: "apiKey", In: "header", Header: "api_key"}}
	oauth, err := NewHTTP(HTTPConfig{BaseURL: base, Servers: servers, Security: schemes, Auth: &Auth{Type: "bearer", TokenEnv: "PETSTORE_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	apiKey, err := NewHTTP(HTTPConfig{BaseURL: base, Servers: servers, Security: schemes, Auth: &Auth{Type: "apiKey", TokenEnv: "PETSTORE_API_KEY"}})
	if err != nil {
		t.Fatal(err)
	}
	anon, err := NewHTTP(HTTPConfig{BaseURL: base, Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	defer oauth.Close()
	defer apiKey.Close()
	defer anon.Close()

	const pet = `{"category":{"id":-9007199254740991,"name":"string"},"id":40,"name":"doggie","photoUrls":["https://example.com/photo.png"],"status":"available","tags":[{"id":-9007199254740991,"name":"string"}]}`

	find := httpTool("GET", "/pet/findByStatus", "", false, pdef{"status", ir.InQuery, "form", bp(true)})
	find.HTTP.Security = []string{"petstore_auth"}
	r := call(t, oauth, ctx, find, map[string]any{"status": []any{"available", "sold"}})
	if r.IsError || r.Status != 200 || jsonOf(t, r.Value) != "["+pet+"]" {
		t.Fatalf("findPetsByStatus: %#v", r)
	}
	// Without a token Prism answers with its own problem document.
	r = call(t, anon, ctx, find, map[string]any{"status": []any{"available"}})
	if !r.IsError || r.Status != 401 || r.Message != "Invalid security scheme used: Your request does not fullfil the security requirements and no HTTP unauthorized response was found in the spec, so Prism is generating this error for you." {
		t.Fatalf("findPetsByStatus unauthenticated: %#v", r)
	}
	// Prism validates the query: an enum violation gets the spec's own 400
	// ("Invalid status value"), which has no body.
	r = call(t, oauth, ctx, find, map[string]any{"status": []any{"lost"}})
	if !r.IsError || r.Status != 400 || r.Value != nil || r.Message != "400 Bad Request" {
		t.Fatalf("findPetsByStatus bad enum: %#v", r)
	}

	get := httpTool("GET", "/pet/{petId}", "", false, pdef{"petId", ir.InPath, "", nil})
	r = call(t, apiKey, ctx, get, map[string]any{"petId": json.Number("1")})
	if r.IsError || r.Status != 200 || jsonOf(t, r.Value) != pet {
		t.Fatalf("getPetById: %#v", r)
	}
	if id := r.Value.(map[string]any)["category"].(map[string]any)["id"]; id != json.Number("-9007199254740991") {
		t.Fatalf("category id %#v", id)
	}
	// Without the api_key header Prism refuses the call (with the spec's
	// bodiless default response).
	r = call(t, anon, ctx, get, map[string]any{"petId": json.Number("1")})
	if !r.IsError || r.Status != 401 || r.Value != nil || r.Message != "401 Unauthorized" {
		t.Fatalf("getPetById unauthenticated: %#v", r)
	}
	// A path parameter of the wrong type is caught by Prism: the spec's 400
	// ("Invalid ID supplied").
	r = call(t, apiKey, ctx, get, map[string]any{"petId": "abc"})
	if !r.IsError || r.Status != 400 || r.Message != "400 Bad Request" {
		t.Fatalf("getPetById bad id: %#v", r)
	}

	// addPet: a JSON body; the spec's only response is 405.
	add := httpTool("POST", "/pet", "application/json", false, pdef{"body", ir.InBodyWhole, "", nil})
	r = call(t, oauth, ctx, add, map[string]any{"body": map[string]any{"name": "Rex", "photoUrls": []any{"https://example.com/rex.png"}, "status": "available"}})
	if !r.IsError || r.Status != 405 || r.Value != nil || r.Message != "405 Method Not Allowed" {
		t.Fatalf("addPet: %#v", r)
	}
	r = call(t, oauth, ctx, add, map[string]any{"body": map[string]any{"name": "Rex"}})
	if !r.IsError || r.Status != 422 {
		t.Fatalf("addPet without photoUrls: %#v", r)
	}
	v := r.Value.(map[string]any)["validation"].([]any)[0].(map[string]any)
	if v["message"] != "Request body must have required property 'photoUrls'" {
		t.Fatalf("validation: %#v", v)
	}

	// updatePetWithForm: form-urlencoded body fields.
	form := httpTool("POST", "/pet/{petId}", "application/x-www-form-urlencoded", true, pdef{"petId", ir.InPath, "", nil}, pdef{"name", ir.InBody, "", nil}, pdef{"status", ir.InBody, "", nil})
	r = call(t, oauth, ctx, form, map[string]any{"petId": json.Number("7"), "name": "Rex & Co", "status": "sold"})
	if !r.IsError || r.Status != 405 || r.Value != nil {
		t.Fatalf("updatePetWithForm: %#v", r)
	}

	// uploadFile: multipart with a binary part; 200 with the example body.
	up := httpTool("POST", "/pet/{petId}/uploadImage", "multipart/form-data", true, pdef{"petId", ir.InPath, "", nil}, pdef{"additionalMetadata", ir.InBody, "", nil}, pdef{"file", ir.InBody, "", nil})
	up.Input = ir.Schema{"properties": map[string]any{"file": map[string]any{"type": "string", "format": "binary"}}}
	r = call(t, oauth, ctx, up, map[string]any{"petId": json.Number("7"), "additionalMetadata": "front", "file": "PNG..."})
	if r.IsError || r.Status != 200 || jsonOf(t, r.Value) != `{"code":-2147483648,"message":"string","type":"string"}` {
		t.Fatalf("uploadFile: %#v (%s)", r, jsonOf(t, r.Value))
	}

	// deletePet: a header parameter and a path parameter. The spec has only
	// 400 and 404, and Prism answers a valid request with the first; without
	// the token it is a 401.
	del := httpTool("DELETE", "/pet/{petId}", "", false, pdef{"api_key", ir.InHeader, "", nil}, pdef{"petId", ir.InPath, "", nil})
	r = call(t, oauth, ctx, del, map[string]any{"api_key": "k", "petId": json.Number("3")})
	if !r.IsError || r.Status != 400 || r.Message != "400 Bad Request" {
		t.Fatalf("deletePet: %#v", r)
	}
	r = call(t, anon, ctx, del, map[string]any{"api_key": "k", "petId": json.Number("3")})
	if !r.IsError || r.Status != 401 {
		t.Fatalf("deletePet unauthenticated: %#v", r)
	}

	// loginUser: two query parameters, a JSON string back.
	login := httpTool("GET", "/user/login", "", false, pdef{"username", ir.InQuery, "", nil}, pdef{"password", ir.InQuery, "", nil})
	r = call(t, anon, ctx, login, map[string]any{"username": "ada lovelace", "password": "p&ss"})
	if r.IsError || r.Status != 200 || r.Value != "string" {
		t.Fatalf("loginUser: %#v", r)
	}
	// A missing required query parameter: the spec's 400.
	r = call(t, anon, ctx, login, map[string]any{"username": "ada"})
	if !r.IsError || r.Status != 400 || r.Message != "400 Bad Request" {
		t.Fatalf("loginUser without password: %#v", r)
	}

	// placeOrder: JSON body; the example order back.
	order := httpTool("POST", "/store/order", "application/json", false, pdef{"body", ir.InBodyWhole, "", nil})
	r = call(t, anon, ctx, order, map[string]any{"body": map[string]any{"petId": json.Number("40"), "quantity": json.Number("2"), "status": "placed"}})
	if r.IsError || r.Status != 200 || jsonOf(t, r.Value) != `{"complete":false,"id":-9007199254740991,"petId":-9007199254740991,"quantity":-2147483648,"shipDate":"2019-08-24T14:15:22Z","status":"placed"}` {
		t.Fatalf("placeOrder: %#v (%s)", r, jsonOf(t, r.Value))
	}
}
