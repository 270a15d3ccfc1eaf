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
