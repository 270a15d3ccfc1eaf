package validate

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemode-dev/codemode/internal/bytesize"
)

// Limits bound the host work one Check does. Zero fields take the
// defaults (see DefaultLimits).
type Limits struct {
	// Depth is how deeply the arguments may nest: the arguments object
	// is depth 1, a list or dict inside it depth 2, and so on.
	Depth int
	// Size caps the arguments' size in bytes, counted as compact JSON.
	Size int
	// Values caps how many values (scalars, lists and dicts) the
	// arguments hold.
	Values int
	// BacktrackInput is the longest value, in characters, a pattern that
	// needs the backtracking engine is run on; a longer one is refused.
	BacktrackInput int
	// PatternTimeout bounds one match of such a pattern; CallRegexTime
	// bounds all of them in one Check. Running out refuses the call.
	PatternTimeout time.Duration
	CallRegexTime  time.Duration
}

// DefaultLimits are the limits New uses.
var DefaultLimits = Limits{
	Depth:          64,
	Size:           4 << 20,
	Values:         100_000,
	BacktrackInput: 10_000,
	PatternTimeout: 25 * time.Millisecond,
	CallRegexTime:  100 * time.Millisecond,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Depth <= 0 {
		l.Depth = d.Depth
	}
	if l.Size <= 0 {
		l.Size = d.Size
	}
	if l.Values <= 0 {
		l.Values = d.Values
	}
	if l.BacktrackInput <= 0 {
		l.BacktrackInput = d.BacktrackInput
	}
	if l.PatternTimeout <= 0 {
		l.PatternTimeout = d.PatternTimeout
	}
	if l.CallRegexTime <= 0 {
		l.CallRegexTime = d.CallRegexTime
	}
	return l
}

// measure walks the arguments and reports the first limit they exceed, as
// the text after "api.<service>.<py>: ". It stops as soon as one is
// exceeded, so its own work is bounded by the limits.
func (l Limits) measure(args map[string]any) string {
	m := meter{lim: l}
	m.walk(args, 1)
	switch {
	case m.deep:
		return fmt.Sprintf("the arguments nest more than %d levels deep; pass flatter data", l.Depth)
	case m.values > l.Values:
		return fmt.Sprintf("the arguments hold more than %s values; pass fewer per call", printer.Sprint(l.Values))
	case m.size > l.Size:
		return fmt.Sprintf("the arguments are larger than %s; pass less data per call", bytesize.Format(int64(l.Size)))
	}
	return ""
}

type meter struct {
	lim          Limits
	size, values int
	deep         bool
}

func (m *meter) over() bool {
	return m.deep || m.size > m.lim.Size || m.values > m.lim.Values
}

func (m *meter) walk(v any, depth int) {
	if m.over() {
		return
	}
	m.values++
	switch x := v.(type) {
	case map[string]any:
		if depth > m.lim.Depth {
			m.deep = true
			return
		}
		m.size += 2
		for k, e := range x {
			m.size += len(k) + 4 // "k":,
			m.walk(e, depth+1)
			if m.over() {
				return
			}
		}
	case []any:
		if depth > m.lim.Depth {
			m.deep = true
			return
		}
		m.size += 2
		for _, e := range x {
			m.size++
			m.walk(e, depth+1)
			if m.over() {
				return
			}
		}
	case string:
		m.size += len(x) + 2
	case json.Number:
		m.size += len(x)
	case nil:
		m.size += 4
	case bool:
		m.size += 5
	default: // float64, int64 and the like: the JSON check comes later
		m.size += 8
	}
}
