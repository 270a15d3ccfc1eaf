package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// Rule is the pack's launch policy for one tool (codemode.yaml:
// services[].policy), checked on every path after the grant, the
// read-gate, validation and the pin, and before any hook:
//
//   - Deny refuses every call, saying why;
//   - Allow names arguments and the only values they may take (an
//     argument a rule names must be given: an upstream's default is not
//     known to be allowed);
//   - Approve holds every call for an approver: the call is not made, the
//     program goes on, and further approval-held calls of the same program
//     join one batch, which the session's pending wait lists. Once the
//     approver approves the wait, each listed call, made again with the
//     same arguments by a later program, goes through once.
type Rule struct {
	Deny    string
	Allow   map[string][]any // keyed by the parameter's Arg
	Approve bool
}

// PendingCall is one call held for approval, listed in the session's wait.
type PendingCall struct {
	Tool   string         `json:"tool"` // api.svc.tool
	Args   map[string]any `json:"args,omitempty"`
	Digest string         `json:"digest"`
}

// String renders the call as a program writes it, for approvers.
func (c PendingCall) String() string {
	keys := make([]string, 0, len(c.Args))
	for k := range c.Args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(c.Args[k])
		parts[i] = k + "=" + string(b)
	}
	return c.Tool + "(" + strings.Join(parts, ", ") + ")"
}

// Approval lets one held call through once, until it expires.
type Approval struct {
	Digest string    `json:"digest"`
	Tool   string    `json:"tool"`
	Until  time.Time `json:"until"`
}

// callDigest identifies a call by its tool and arguments (canonical JSON:
// encoding/json sorts map keys), so an approval fits only the call that
// was shown to the approver.
func callDigest(id ir.ToolID, args map[string]any) string {
	b, _ := json.Marshal(args)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", id)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// CheckRule reports a rule that names an argument the tool does not have,
// or a value the argument's schema could never accept, for gen and check.
func CheckRule(t *manifest.Tool, allow map[string][]any) (map[string][]any, error) {
	out := map[string][]any{}
	for name, values := range allow {
		var arg string
		var names []string
		for _, p := range t.Params {
			names = append(names, string(p.Py))
			if string(p.Py) == name || string(p.Wire) == name || p.Arg == name {
				arg = p.Arg
			}
		}
		if arg == "" {
			msg := fmt.Sprintf("policy of %s: allow names %q, which is not one of its parameters", t.Wire, name)
			if best := closest(name, names); best != "" {
				return nil, fmt.Errorf("%s; did you mean %q?", msg, best)
			}
			return nil, fmt.Errorf("%s (%s)", msg, strings.Join(names, ", "))
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("policy of %s: allow.%s lists no values: no call could be made; use deny to refuse the tool", t.Wire, name)
		}
		out[arg] = values
	}
	return out, nil
}

// allowed checks args against the rule's allowed values; "" when they fit.
func (rl Rule) allowed(call string, t *manifest.Tool, args map[string]any) string {
	keys := make([]string, 0, len(rl.Allow))
	for k := range rl.Allow {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, arg := range keys {
		values := rl.Allow[arg]
		py := arg
		for _, p := range t.Params {
			if p.Arg == arg {
				py = string(p.Py)
			}
		}
		v, ok := args[arg]
		if !ok {
			return fmt.Sprintf("%s was refused by the pack's policy: %s must be given, as one of %s", call, py, listValues(values))
		}
		if !slices.ContainsFunc(values, func(a any) bool { return sameJSON(a, v) }) {
			b, _ := json.Marshal(v)
			return fmt.Sprintf("%s was refused by the pack's policy: %s=%s is not allowed; allowed: %s", call, py, b, listValues(values))
		}
	}
	return ""
}

func listValues(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// sameJSON compares two values as JSON does: 12 and 12.0 are one number.
func sameJSON(a, b any) bool {
	x, _ := json.Marshal(normalizeJSON(a))
	y, _ := json.Marshal(normalizeJSON(b))
	return string(x) == string(y)
}

func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// approvedKey carries, in a job's context, the digest of the approval its
// submit consumed.
type approvedKey struct{}

// takeApproval consumes the session's approval for digest, if it has an
// unexpired one.
func (r *Runtime) takeApproval(session, digest string) (bool, error) {
	found := false
	err := r.jobs.update(session, func(sj *SessionJobs) error {
		now := time.Now()
		kept := sj.Approved[:0]
		for _, a := range sj.Approved {
			switch {
			case now.After(a.Until):
			case !found && a.Digest == digest:
				found = true
			default:
				kept = append(kept, a)
			}
		}
		sj.Approved = kept
		return nil
	})
	return found, err
}
