package manifest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// checkString fails when appendString writes s otherwise than
// encoding/json does, with HTML escaping (json.Marshal) and without (an
// Encoder with SetEscapeHTML(false)).
func checkString(t *testing.T, s string) {
	t.Helper()
	html, _ := json.Marshal(s)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	plain := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if got := appendString(nil, s, true); !bytes.Equal(got, html) {
		t.Fatalf("appendString(%q, html) = %s, encoding/json %s", s, got, html)
	}
	if got := appendString([]byte("x"), s, false); !bytes.Equal(got[1:], plain) {
		t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got[1:], plain)
	}
}

// TestAppendStringIsEncodingJSON: every byte, escapes at the start, the
// middle and the end, invalid and cut UTF-8, U+2028 and U+2029, and long
// runs of safe bytes between.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	for c := range 256 {
		checkString(t, string([]byte{byte(c)}))
		checkString(t, "ab"+string([]byte{byte(c)})+"cd")
		// at every place of the eight bytes read at once, and after
		for at := range 19 {
			b := []byte(strings.Repeat("plain~ ", 3))
			b[at] = byte(c)
			checkString(t, string(b))
		}
	}
	for _, s := range []string{
		"", "<a & b>", "\u2028\u2029", "é\xffé", "\xe2\x80", "\xe2\x80\xa8x", "\"\\\"", "\x00\x1f\x7f",
		strings.Repeat("safe text ", 100) + "<" + strings.Repeat("é", 50) + "\n",
	} {
		checkString(t, s)
	}
}

// FuzzAppendString: appendString writes any string as encoding/json does.
func FuzzAppendString(f *testing.F) {
	f.Add("a<b>&\u2028\xff\"\\\n")
	f.Fuzz(checkString)
}
