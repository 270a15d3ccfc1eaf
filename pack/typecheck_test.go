package pack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// TestGeneratedFilesTypeCheck hands every generated surface to Monty's type
// checker twice: the api/<service>.py itself as the stubs with a program
// that calls each tool by name with valid arguments, and the runtime's
// stubs with the same calls as api.<service>.<tool>(...). Both must check
// clean, and a call with a wrong argument type must be refused, which
// proves the checker really resolved the signatures.
func TestGeneratedFilesTypeCheck(t *testing.T) {
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	packs := corpusPacks(t)
	refused := 0
	for _, name := range sortedNames(packs) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && strings.Contains(name, "github-rest") {
				t.Skip("github-rest is checked in the full run")
			}
			out, err := pack.Compile(context.Background(), packs[name], pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			svc := out.Services[0]
			ms := &out.Manifest.Services[0]
			var byName, byAPI strings.Builder
			for _, tool := range svc.Tools {
				args := validArgs(tool)
				fmt.Fprintf(&byName, "%s(%s)\n", tool.Py, args)
				fmt.Fprintf(&byAPI, "api.%s.%s(%s)\n", svc.Name, tool.Py, args)
			}
			pyStubs := string(out.Files[ms.File]) + "\n__all__ = [" + quotedNames(svc) + "]\n"
			typeCheck(t, bin, pyStubs, byName.String(), "")
			stubs := manifest.AssembleStubs([]*manifest.Service{ms})
			typeCheck(t, bin, stubs, byAPI.String(), "")
			if bad, ok := wrongCall(svc); ok {
				typeCheck(t, bin, stubs, bad, "error[invalid-argument-type]")
				refused++
			}
		})
	}
	if refused < 20 {
		t.Errorf("only %d services had a wrong call refused", refused)
	}
}

func quotedNames(svc *ir.Service) string {
	var q []string
	for _, tool := range svc.Tools {
		q = append(q, strconv.Quote(string(tool.Py)))
	}
	return strings.Join(q, ", ")
}

// typeCheck feeds code to a fresh type-checking worker; want is "" for a
// clean check, else a substring of the diagnostics.
func typeCheck(t *testing.T, bin, stubs, code, want string) {
	t.Helper()
	ctx := context.Background()
	w, err := monty.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Configure(monty.Config{ScriptName: "program.py", TypeCheck: true, TypeCheckStubs: stubs, TypeCheckFormat: "concise"}); err != nil {
		t.Fatal(err)
	}
	out, err := w.Feed(ctx, code, nil, monty.Funcs{})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case want == "" && out.TypingError != "":
		t.Errorf("type check failed:\n%s\nprogram:\n%s", firstLines(out.TypingError, 10), firstLines(code, 20))
	case want != "" && !strings.Contains(out.TypingError, want):
		t.Errorf("wrong call not refused (got %q):\n%s", out.TypingError, code)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// wrongCall calls the first tool with a required str parameter with an int.
func wrongCall(svc *ir.Service) (string, bool) {
	for _, tool := range svc.Tools {
		for _, p := range tool.Params {
			if p.Required && p.Type.Kind == ir.KindStr && !p.Type.Nullable {
				return fmt.Sprintf("api.%s.%s(%s)\n", svc.Name, tool.Py, strings.Replace(validArgs(tool), string(p.Py)+"=", string(p.Py)+"=12345 or ", 1)), true
			}
		}
	}
	return "", false
}

// validArgs writes keyword arguments for every required parameter.
func validArgs(tool *ir.Tool) string {
	var parts []string
	for _, p := range tool.Params {
		if p.Required {
			parts = append(parts, string(p.Py)+"="+pyValue(p.Type, 0))
		}
	}
	return strings.Join(parts, ", ")
}

// pyValue is a Python literal the type accepts.
func pyValue(t *ir.Type, depth int) string {
	if t == nil || depth > 8 {
		return "None"
	}
	switch t.Kind {
	case ir.KindStr:
		return `"x"`
	case ir.KindInt:
		return "1"
	case ir.KindFloat:
		return "1.5"
	case ir.KindBool:
		return "True"
	case ir.KindBytes:
		return `b"x"`
	case ir.KindList:
		return "[" + pyValue(t.Items, depth+1) + "]"
	case ir.KindTuple:
		var es []string
		for _, e := range t.Elems {
			es = append(es, pyValue(e, depth+1))
		}
		return "(" + strings.Join(es, ", ") + ",)"
	case ir.KindMap:
		return "{}"
	case ir.KindLiteral:
		switch v := t.Literals[0].(type) {
		case string:
			return strconv.Quote(v)
		case bool:
			if v {
				return "True"
			}
			return "False"
		case json.Number:
			return v.String()
		}
		return fmt.Sprint(t.Literals[0])
	case ir.KindUnion:
		return pyValue(t.Variants[0], depth+1)
	case ir.KindObject:
		var kv []string
		for _, f := range t.Object.Fields {
			if f.Required {
				kv = append(kv, strconv.Quote(f.Wire)+": "+pyValue(f.Type, depth+1))
			}
		}
		return "{" + strings.Join(kv, ", ") + "}"
	}
	return "None"
}
