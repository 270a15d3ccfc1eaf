package opslab

import (
	"encoding/json"
	"os"
	"time"
)

// sharedState is what one lab process tells the others: the lab clock and
// when the fault was fixed. Job records stay with the controller.
type sharedState struct {
	Now     time.Time `json:"now"`
	FixedAt time.Time `json:"fixed_at"`
}

// loadState reads the shared state file, when there is one.
func (l *Lab) loadState() {
	if l.cfg.State == "" {
		return
	}
	data, err := os.ReadFile(l.cfg.State)
	if err != nil {
		return
	}
	var s sharedState
	if json.Unmarshal(data, &s) == nil {
		if s.Now.After(l.now) {
			l.now = s.Now
		}
		if l.fixedAt.IsZero() && !s.FixedAt.IsZero() {
			l.fixedAt = s.FixedAt
		}
	}
}

// saveState writes the shared state file atomically.
func (l *Lab) saveState() {
	if l.cfg.State == "" {
		return
	}
	data, _ := json.Marshal(sharedState{Now: l.now, FixedAt: l.fixedAt})
	tmp := l.cfg.State + ".tmp"
	if os.WriteFile(tmp, data, 0o644) == nil {
		os.Rename(tmp, l.cfg.State)
	}
}
