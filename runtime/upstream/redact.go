package upstream

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Redacted is what a secret value is replaced with.
const Redacted = "[redacted]"

// minSecret is the shortest value a Redactor hides: shorter values would
// blank out ordinary text and are not credentials anyway.
const minSecret = 4

// Redactor replaces every secret value it holds (raw, query-escaped and
// path-escaped) with [redacted] in text leaving the host side: upstream
// errors, messages and results of MCP servers and HTTP APIs, notes. The
// zero value and nil hold nothing; it is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets map[string]bool
	rep     *strings.Replacer
}

// NewRedactor returns a redactor holding secrets.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secret values; values shorter than 4 bytes are ignored.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	// A token source hands out the same token for every request: when each
	// secret is held already, nothing is to be done, and no writer lock
	// holds up the calls redacting results.
	r.mu.RLock()
	held := true
	for _, s := range secrets {
		if len(s) >= minSecret && !r.secrets[s] {
			held = false
			break
		}
	}
	r.mu.RUnlock()
	if held {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	n := len(r.secrets)
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			r.secrets[form] = true
		}
	}
	if len(r.secrets) == n {
		return
	}
	forms := make([]string, 0, len(r.secrets))
	for s := range r.secrets {
		forms = append(forms, s)
	}
	// Longest first, so a secret containing another is hidden whole.
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i]) != len(forms[j]) {
			return len(forms[i]) > len(forms[j])
		}
		return forms[i] < forms[j]
	})
	pairs := make([]string, 0, 2*len(forms))
	for _, s := range forms {
		pairs = append(pairs, s, Redacted)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// Merge adds every secret o holds.
func (r *Redactor) Merge(o *Redactor) {
	if r == nil || o == nil || r == o {
		return
	}
	o.mu.RLock()
	list := make([]string, 0, len(o.secrets))
	for s := range o.secrets {
		list = append(list, s)
	}
	o.mu.RUnlock()
	r.Add(list...)
}

func (r *Redactor) replacer() *strings.Replacer {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rep
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	rep := r.replacer()
	if rep == nil || s == "" {
		return s
	}
	return rep.Replace(s)
}

// Error returns err with its text redacted. The result still matches
// context.Canceled and context.DeadlineExceeded with errors.Is, but unwraps
// to nothing else (an inner *url.Error would carry the query string).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	var inner error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		inner = context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		inner = context.Canceled
	}
	if red == msg && inner == nil {
		if _, ok := err.(*redactedError); ok {
			return err
		}
	}
	return &redactedError{msg: red, inner: inner}
}

type redactedError struct {
	msg   string
	inner error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.inner }

// Value returns v (a decoded JSON value) with every string in it, keys
// included, redacted. Values without a secret are returned as they are.
func (r *Redactor) Value(v any) any {
	rep := r.replacer()
	if rep == nil {
		return v
	}
	return redactValue(rep, v)
}

func redactValue(rep *strings.Replacer, v any) any {
	switch x := v.(type) {
	case string:
		return rep.Replace(x)
	case []any:
		for i, it := range x {
			x[i] = redactValue(rep, it)
		}
		return x
	case map[string]any:
		for k, it := range x {
			nk := rep.Replace(k)
			if nk != k {
				delete(x, k)
			}
			x[nk] = redactValue(rep, it)
		}
		return x
	}
	return v
}

// Result redacts a result's value, message and _meta in place.
func (r *Redactor) Result(res *Result) *Result {
	if res == nil || r.replacer() == nil {
		return res
	}
	res.Value = r.Value(res.Value)
	res.Message = r.String(res.Message)
	if res.Meta != nil {
		res.Meta, _ = r.Value(res.Meta).(map[string]any)
	}
	return res
}
