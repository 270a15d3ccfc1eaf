package runtime_test

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/runtime"
)

// TestPayloadCap: values are kept whole under the cap, cut on a UTF-8
// boundary over it, and always carry the size and digest of the whole.
func TestPayloadCap(t *testing.T) {
	small := runtime.ValuePayload(map[string]any{"q": "<a&b>"})
	if string(small.Value) != `{"q":"<a&b>"}` || small.Text != "" || small.Cut || small.Bytes != 13 || small.SHA256 != sha(`{"q":"<a&b>"}`) {
		t.Errorf("small value: %+v", small)
	}
	// "é" is two bytes; the cut falls inside one and moves before it.
	big := `"` + strings.Repeat("é", runtime.AuditCap) + `"`
	p := runtime.ValuePayload(strings.Repeat("é", runtime.AuditCap))
	if p.Value != nil || !p.Cut || p.Text != big[:runtime.AuditCap-1] || p.Bytes != len(big) || p.SHA256 != sha(big) {
		t.Errorf("big value: cut=%v %d bytes of text, %d bytes, %s", p.Cut, len(p.Text), p.Bytes, p.SHA256)
	}
	// Raw arguments a client sent: valid JSON is kept compact (with the
	// digest of what was sent); anything else is kept as text.
	if r := runtime.RawPayload([]byte(`{ "a": 1 }`)); string(r.Value) != `{"a":1}` || r.Bytes != 10 || r.SHA256 != sha(`{ "a": 1 }`) {
		t.Errorf("raw JSON: %+v", r)
	}
	if r := runtime.RawPayload([]byte(`{"a":`)); r.Value != nil || r.Text != `{"a":` || r.Cut {
		t.Errorf("raw non-JSON: %+v", r)
	}
	if r := runtime.RawPayload(nil); r.Value != nil || r.Text != "" || r.Bytes != 0 {
		t.Errorf("no arguments: %+v", r)
	}
	code := runtime.CodePayload("print('hi')\n")
	if code.Text != "print('hi')\n" || code.SHA256 != sha("print('hi')\n") || code.Bytes != 12 {
		t.Errorf("code: %+v", code)
	}
}
