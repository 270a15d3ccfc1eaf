package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// seeds adds the corpus files under dir no larger than 64 kB.
func seeds(f *testing.F, pattern string) { seedsUpTo(f, pattern, 64<<10) }

// seedsUpTo adds the corpus files matching pattern no larger than limit.
func seedsUpTo(f *testing.F, pattern string, limit int64) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		if st, err := os.Stat(file); err != nil || st.Size() > limit {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzMCP: no input may make MCP panic, and a nil error means a service.
func FuzzMCP(f *testing.F) {
	seeds(f, "../testdata/corpus/mcp/*.json")
	f.Add([]byte(`[{"name":"a","inputSchema":{"$ref":"#/$defs/x","$defs":{"x":{"properties":{"b":{}}}}}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","inputSchema":{"properties":[]}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		svc, err := MCP("fuzz.json", data, Options{})
		if err == nil && svc == nil {
			t.Fatal("nil service without error")
		}
	})
}

// FuzzOpenAPI: no input may make OpenAPI panic, and a nil error means a
// service.
func FuzzOpenAPI(f *testing.F) {
	seeds(f, "../testdata/corpus/openapi/*.json")
	seeds(f, "../testdata/corpus/openapi/*.yaml")
	f.Add([]byte("openapi: 3.1.0\npaths:\n  /a:\n    $ref: '#/paths/~1a'\n"))
	f.Add([]byte("swagger: '2.0'\na: &a [*a]\n"))
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/x":{"get":{"parameters":[{"$ref":"#/components/parameters/p"}]}}},"components":{"parameters":{"p":{"$ref":"#/components/parameters/p"}}}}`))
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/x":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},"components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/A"}]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		svc, err := OpenAPI("fuzz.yaml", data, Options{})
		if err == nil && svc == nil {
			t.Fatal("nil service without error")
		}
	})
}

// FuzzDecodeJSON: the token decoder makes exactly the values (and errors)
// encoding/json's Decode makes, and records an object's keys in order.
func FuzzDecodeJSON(f *testing.F) {
	seedsUpTo(f, "../testdata/corpus/mcp/*.json", 8<<10)
	f.Add([]byte(`{"paths":{"/b":{},"/a":{"post":{},"get":{}}},"properties":{"z":1,"a":2,"z":3}}`))
	f.Add([]byte(`[1, 2.5e3, "x\u00e9", true, null, {"a": [{}]}]`))
	f.Add([]byte(`{"a":1,}`))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ord, err := decodeJSON("fuzz.json", data)
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var werr error
		if derr := dec.Decode(&want); derr != nil {
			werr = jsonError("fuzz.json", data, derr)
		} else if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
			werr = errors.New("data after the top-level value")
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("error %v, Decode's %v", err, werr)
		}
		if err != nil {
			if !strings.HasSuffix(err.Error(), werr.Error()) {
				t.Fatalf("error %q, want %q", err, werr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %#v, Decode made %#v", got, want)
		}
		for ptr, keys := range ord {
			v, _ := lookup(got, ptr)
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("order recorded at %s, which is no object", ptr)
			}
			for _, k := range keys {
				if _, ok := m[k]; !ok {
					t.Fatalf("order at %s names %q, not a key", ptr, k)
				}
			}
		}
	})
}
