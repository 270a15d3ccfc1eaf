package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Audit caps: how much of a call's arguments or result, of a program's code
// and of a message an audit event keeps. What is over the cap is cut; the
// byte size and sha256 of the whole are always kept.
const (
	AuditCap        = 16 << 10 // arguments, results: 16 KiB each
	AuditCodeCap    = 64 << 10 // a program's code
	AuditMessageCap = 4 << 10  // an event's message
)

// Payload is a value as the audit log keeps it: whole when it fits in its
// cap, else its first bytes, and always the size and digest of the whole.
type Payload struct {
	// Value is the whole JSON value (arguments, results) when its JSON text
	// fits in the cap.
	Value json.RawMessage `json:"value,omitempty"`
	// Text is the whole text (a program's code) when it fits in the cap,
	// or, when Cut, the first bytes of the text (for a JSON value, of its
	// JSON text) up to the cap.
	Text string `json:"text,omitempty"`
	Cut  bool   `json:"cut,omitempty"`
	// Bytes and SHA256 ("sha256:<hex>") are of the whole text: the JSON
	// text of a value (compact, no HTML escaping), the code as given, or
	// (RawPayload) the bytes as a client sent them.
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ValuePayload keeps a JSON value (a call's arguments or result) for the
// audit log, up to AuditCap.
func ValuePayload(v any) *Payload {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return textPayload([]byte("unencodable value: "+err.Error()), AuditCap)
	}
	return jsonPayload(bytes.TrimRight(buf.Bytes(), "\n"))
}

// RawPayload keeps raw JSON as a client sent it (it may be invalid) for the
// audit log, up to AuditCap.
func RawPayload(raw []byte) *Payload {
	if len(raw) <= AuditCap && json.Valid(raw) {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			p := jsonPayload(buf.Bytes())
			// The digest is of what was sent.
			p.Bytes, p.SHA256 = len(raw), digestBytes(raw)
			return p
		}
	}
	return textPayload(raw, AuditCap)
}

// CodePayload keeps a program's code for the audit log, up to AuditCodeCap.
func CodePayload(code string) *Payload {
	return textPayload([]byte(code), AuditCodeCap)
}

func jsonPayload(j []byte) *Payload {
	if len(j) <= AuditCap {
		return &Payload{Value: append(json.RawMessage(nil), j...), Bytes: len(j), SHA256: digestBytes(j)}
	}
	return textPayload(j, AuditCap)
}

func textPayload(b []byte, limit int) *Payload {
	p := &Payload{Bytes: len(b), SHA256: digestBytes(b)}
	if len(b) > limit {
		b, p.Cut = b[:utf8Prefix(b, limit)], true
	}
	p.Text = string(b)
	return p
}

// CapText cuts s to at most n bytes (on a UTF-8 boundary), saying so.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:utf8Prefix(s, n)] + "… [cut in the audit log]"
}

func capMessage(s string) string { return CapText(s, AuditMessageCap) }

func digestBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
