package ir

import (
	"encoding/json"
	"strings"
	"testing"
)

// nested is JSON for a list of strings nested n levels, around inner.
func nested(n int, inner string) string {
	return strings.Repeat(`{"type":"array","items":`, n) + inner + strings.Repeat(`}`, n)
}

// TestDeepTypeCutLeavesSharedTypeWhole: a $ref target nested 20 levels is
// used as it is by one parameter and under 20 more levels by another; only
// the second is cut (at MaxTypeDepth, with one type-too-deep diagnostic),
// and the first keeps all 20 levels although the two share the type.
func TestDeepTypeCutLeavesSharedTypeWhole(t *testing.T) {
	src := `{"type":"object","properties":{"a":{"$ref":"#/$defs/L"},"b":` + nested(20, `{"$ref":"#/$defs/L"}`) +
		`},"$defs":{"L":` + nested(20, `{"type":"string"}`) + `}}`
	var in Schema
	if err := json.Unmarshal([]byte(src), &in); err != nil {
		t.Fatal(err)
	}
	svc := &Service{Name: "s", Source: Source{Kind: SourceMCP, File: "s.json"}, Tools: []*Tool{{
		Wire: "t", Py: "t", Pointer: "/tools/0", Input: in,
		Params: []*Param{{Arg: "a", Wire: "a", Py: "a", Ref: "/properties/a"}, {Arg: "b", Wire: "b", Py: "b", Ref: "/properties/b"}},
	}}}
	Resolve(svc)
	depth := func(t *Type) int {
		n := 0
		for ; t != nil && t.Kind == KindList; t = t.Items {
			n++
		}
		return n
	}
	if got := depth(svc.Tools[0].Params[0].Type); got != 20 {
		t.Errorf("a is nested %d levels, want 20", got)
	}
	if got := depth(svc.Tools[0].Params[1].Type); got != MaxTypeDepth-1 {
		t.Errorf("b is nested %d levels, want %d", got, MaxTypeDepth-1)
	}
	if len(svc.Diagnostics) != 1 || svc.Diagnostics[0].Code != "type-too-deep" ||
		svc.Diagnostics[0].Pointer != "/tools/0/inputSchema/properties/b"+strings.Repeat("/items", MaxTypeDepth-1) {
		t.Errorf("diagnostics: %v", svc.Diagnostics)
	}
}

// TestEachDeepParameterReportsItsPointer: the parameters of one tool share
// one walk state (Resolve reuses it); each parameter nested past
// MaxSchemaDepth is still reported once, at its own pointer (where its
// type is cut), whether another before it was cut or not.
func TestEachDeepParameterReportsItsPointer(t *testing.T) {
	src := `{"type":"object","properties":{"a":` + nested(MaxSchemaDepth+5, `{"type":"string"}`) + `,"b":{"type":"string"},"c":` +
		nested(MaxSchemaDepth+5, `{"type":"string"}`) + `}}`
	var in Schema
	if err := json.Unmarshal([]byte(src), &in); err != nil {
		t.Fatal(err)
	}
	svc := &Service{Name: "s", Source: Source{Kind: SourceOpenAPI, File: "s.json"}, Tools: []*Tool{{
		Wire: "t", Py: "t", Pointer: "/paths/~1t/get", Input: in,
		Params: []*Param{
			{Arg: "a", Wire: "a", Py: "a", Ref: "/parameters/query/a"},
			{Arg: "b", Wire: "b", Py: "b", Ref: "/parameters/query/b"},
			{Arg: "c", Wire: "c", Py: "c", Ref: "/parameters/query/c"},
		},
	}}}
	Resolve(svc)
	var got []string
	for _, d := range svc.Diagnostics {
		if d.Code == DiagTypeTooDeep {
			got = append(got, d.Pointer)
		}
	}
	cut := strings.Repeat("/items", MaxTypeDepth-1)
	if want := []string{"/paths/~1t/get/parameters/query/a" + cut, "/paths/~1t/get/parameters/query/c" + cut}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("type-too-deep pointers %q, want %q (all: %v)", got, want, svc.Diagnostics)
	}
}
