package parse

import (
	"encoding/json"
	"os"
	"testing"
)

func TestDumpMCP(t *testing.T) {
	f := os.Getenv("DUMP")
	if f == "" {
		t.Skip()
	}
	svc, err := MCPFile(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(svc, "", " ")
	os.Stdout.Write(b)
}

func TestDumpOpenAPI(t *testing.T) {
	f := os.Getenv("DUMPOAS")
	if f == "" {
		t.Skip()
	}
	svc, err := OpenAPIFile(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := os.Getenv("TOOL"); w != "" {
		for _, tool := range svc.Tools {
			if string(tool.Wire) == w {
				b, _ := json.MarshalIndent(tool, "", " ")
				os.Stdout.Write(b)
			}
		}
		return
	}
	for _, d := range svc.Diagnostics {
		t.Log(d)
	}
	for _, tool := range svc.Tools {
		t.Logf("%s %s %s %+v", tool.Wire, tool.Py, tool.Pointer, tool.HTTP)
		for _, p := range tool.Params {
			t.Logf("   %s %s %s %s req=%v %s %q", p.Arg, p.Py, p.In, p.Pointer, p.Required, p.Style, p.Description)
		}
	}
}
