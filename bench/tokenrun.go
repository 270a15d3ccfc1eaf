package bench

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/codemode-dev/codemode/opslab"
)

// Task is one incident solved by both arms.
type Task struct {
	Fault            *opslab.Fault
	Direct, Code     Stats
	DirectAnswer     string
	CodeAnswer       string
	DirectOK         bool // the answer names the planted fault
	CodeOK           bool
	DirectTranscript *Transcript
	CodeTranscript   *Transcript
}

// LabTokens are one lab size's numbers.
type LabTokens struct {
	Size opslab.Size
	// Tool definitions offered with every request: count and tokens.
	DirectTools, CodeTools int
	DirectDefs, CodeDefs   int
	Tasks                  []Task
	// LabCompile is codemode's compile of the lab's four services.
	LabTools int
}

// RunTokens solves every incident on one lab size with both arms against
// the lab binary and counts tokens. work is a scratch directory.
func RunTokens(ctx context.Context, bin, work string, size opslab.Size, seed uint64) (*LabTokens, error) {
	lt := &LabTokens{Size: size}
	api := filepath.Join(work, "api")
	out, err := CompileLab(ctx, filepath.Join(work, "pack"), api, bin, size, seed)
	if err != nil {
		return nil, fmt.Errorf("compile the lab: %w", err)
	}
	for _, s := range out.Services {
		lt.LabTools += len(s.Tools)
	}
	for _, f := range opslab.Faults {
		d, err := DialDirect(ctx, bin, size, seed, f)
		if err != nil {
			return nil, err
		}
		if lt.DirectTools == 0 {
			defs, err := d.Tools(ctx)
			if err != nil {
				d.Close()
				return nil, err
			}
			lt.DirectTools, lt.DirectDefs = len(defs), defsTokens(defs)
		}
		dAns, err := SolveDirect(ctx, d)
		d.Close()
		if err != nil {
			return nil, fmt.Errorf("%s %s direct: %w", size, f.ID, err)
		}
		c, err := DialCode(ctx, filepath.Join(work, "run-"+f.ID), api, bin, size, seed, f)
		if err != nil {
			return nil, err
		}
		if lt.CodeTools == 0 {
			defs, err := c.Tools(ctx)
			if err != nil {
				c.Close()
				return nil, err
			}
			lt.CodeTools, lt.CodeDefs = len(defs), defsTokens(defs)
		}
		cAns, err := SolveCode(ctx, c)
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("%s %s code: %w", size, f.ID, err)
		}
		lt.Tasks = append(lt.Tasks, Task{
			Fault: f, DirectAnswer: dAns, CodeAnswer: cAns, DirectOK: f.Names(dAns), CodeOK: f.Names(cAns),
			Direct: Measure(d.T, lt.DirectDefs), Code: Measure(c.T, lt.CodeDefs),
			DirectTranscript: d.T, CodeTranscript: c.T,
		})
	}
	return lt, nil
}

// defsTokens counts tool definitions as a harness sends them: a JSON array
// of the tools/list entries.
func defsTokens(defs []string) int {
	s := "["
	for i, d := range defs {
		if i > 0 {
			s += ","
		}
		s += d
	}
	return Tokens(s + "]")
}
