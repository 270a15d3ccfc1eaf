package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds adds the corpus files under dir no larger than 64 kB.
func seeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		if st, err := os.Stat(file); err != nil || st.Size() > 64<<10 {
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
