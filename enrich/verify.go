package enrich

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// Formats a format proposal may add.
var knownFormats = map[string]bool{"date-time": true, "date": true, "email": true, "uuid": true, "uri": true}

// keywords each kind may set.
var kindKeywords = map[string][]string{
	KindEnum:           {"enum"},
	KindBoolString:     {"enum"},
	KindRange:          {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
	KindLength:         {"minLength", "maxLength", "minItems", "maxItems"},
	KindFormat:         {"format"},
	KindStaticDefault:  {"default"},
	KindRuntimeDefault: {"required"},
}

// Verify checks one proposal against the parameter's description, schema
// and requiredness. It accepts only changes that narrow what the schema
// accepts, backed by evidence found verbatim in the description, that
// every value the source gives for the parameter (its default, example(s),
// existing enum, values quoted after "e.g." or "for example") still
// satisfies, and whose evidence is not hedged ("by default",
// "configurable", "unless ..."). The reason says why a proposal was
// rejected ("verified" when it was not).
func Verify(p Proposal, description string, schema ir.Schema, required bool) (bool, string) {
	if strings.TrimSpace(p.Evidence) == "" {
		return false, "no evidence"
	}
	if !strings.Contains(description, p.Evidence) {
		return false, "evidence not found in the description"
	}
	allowed, ok := kindKeywords[p.Kind]
	if !ok {
		return false, fmt.Sprintf("unknown kind %q", p.Kind)
	}
	if len(p.To) == 0 {
		return false, "empty change"
	}
	for _, k := range sortedKeys(p.To) {
		if !contains(allowed, k) {
			return false, fmt.Sprintf("keyword %q is not allowed for kind %s", k, p.Kind)
		}
	}
	if schema == nil {
		schema = ir.Schema{}
	}
	ok, reason := verifyKind(p, schema, required)
	if !ok {
		return false, reason
	}
	if ok, why := verifyHedge(p, description); !ok {
		return false, why
	}
	if ok, why := verifySubject(p, description); !ok {
		return false, why
	}
	if ok, why := verifyCounted(p, description); !ok {
		return false, why
	}
	if ok, why := verifyConsistent(p, description, schema); !ok {
		return false, why
	}
	return true, reason
}

// verifyKind runs the checks of p's kind.
func verifyKind(p Proposal, schema ir.Schema, required bool) (bool, string) {
	switch p.Kind {
	case KindRuntimeDefault:
		if v, ok := p.To["required"].(bool); !ok || !v {
			return false, "runtime-default must set required to true"
		}
		if required {
			return false, "parameter is already required"
		}
		// "default is returned when the thumbnail is not found" on a
		// flag whose schema says default true: the schema's own default
		// is what leaving it out gives.
		if d, ok := schema["default"]; ok && staticDefault(schema, d) {
			return false, fmt.Sprintf("the schema gives the default %s", show(d))
		}
		return true, "verified"
	case KindEnum, KindBoolString:
		return verifyEnum(p, schema)
	case KindRange:
		return verifyRange(p, schema)
	case KindLength:
		return verifyLength(p, schema)
	case KindFormat:
		return verifyFormat(p, schema)
	case KindStaticDefault:
		return verifyDefault(p, schema)
	}
	return false, "unhandled kind"
}

// staticDefault says whether d, a schema's default, is a value rather than
// a sentence standing in one ("The day the request is made."): not null,
// and for a string one token or a value its enum lists.
func staticDefault(schema ir.Schema, d any) bool {
	switch v := d.(type) {
	case nil:
		return false
	case string:
		if es, ok := schema["enum"].([]any); ok {
			for _, e := range es {
				if e == v {
					return true
				}
			}
		}
		return v != "" && !strings.ContainsAny(v, " \t\n")
	}
	return true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// schemaTypes returns the JSON types a schema names ("integer" implies
// nothing about "number" here); nil when it names none.
func schemaTypes(s ir.Schema) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if xs, ok := x.(string); ok {
				out = append(out, xs)
			}
		}
		return out
	case []string:
		return t
	}
	return nil
}

// mainType is the single non-null type of a schema, or "". A schema
// without a type whose anyOf/oneOf branches all have one and the same
// non-null type (`anyOf: [{type: string, const: off}, {type: string,
// const: strict}]`) has that type.
func mainType(s ir.Schema) string {
	if len(schemaTypes(s)) == 0 {
		return branchType(s)
	}
	var main string
	for _, t := range schemaTypes(s) {
		if t == "null" {
			continue
		}
		if main != "" {
			return ""
		}
		main = t
	}
	return main
}

// branches returns the anyOf/oneOf branches of s that are schemas, and
// whether s has such a keyword.
func branches(s ir.Schema) ([]ir.Schema, bool) {
	for _, kw := range []string{"anyOf", "oneOf"} {
		arr, ok := s[kw].([]any)
		if !ok {
			continue
		}
		var out []ir.Schema
		for _, b := range arr {
			if m, ok := b.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out, true
	}
	return nil, false
}

// branchType is the one non-null type every anyOf/oneOf branch of an
// untyped schema has (null branches aside), or "".
func branchType(s ir.Schema) string {
	bs, ok := branches(s)
	if !ok {
		return ""
	}
	typ := ""
	for _, b := range bs {
		if _, ref := b["$ref"]; ref {
			return ""
		}
		ts := schemaTypes(b)
		if len(ts) == 1 && ts[0] == "null" {
			continue
		}
		t := mainType(b)
		if t == "" || typ != "" && t != typ {
			return ""
		}
		typ = t
	}
	return typ
}

// jsonType is the JSON Schema type of a decoded value ("integer" for whole
// numbers).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isWhole(string(x)) {
			return "integer"
		}
		return "number"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func isWhole(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// typeAccepts says whether a schema's type keyword admits v.
func typeAccepts(s ir.Schema, v any) bool {
	ts := schemaTypes(s)
	if len(ts) == 0 {
		return true
	}
	jt := jsonType(v)
	for _, t := range ts {
		if t == jt || (t == "number" && jt == "integer") {
			return true
		}
	}
	return false
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// equalJSON compares two decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	if fa, ok := num(a); ok {
		fb, ok := num(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !equalJSON(v, y[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func verifyEnum(p Proposal, s ir.Schema) (bool, string) {
	vals, ok := p.To["enum"].([]any)
	if !ok || len(vals) == 0 {
		return false, "enum must be a non-empty list"
	}
	if mainType(s) == "" && len(schemaTypes(s)) == 0 {
		return false, "schema has no type: cannot check enum values"
	}
	for i, v := range vals {
		for _, w := range vals[:i] {
			if equalJSON(v, w) {
				return false, fmt.Sprintf("enum value %s is repeated", show(v))
			}
		}
		if !typeAccepts(s, v) {
			return false, fmt.Sprintf("enum value %s is not of the schema's type %s", show(v), strings.Join(schemaTypes(s), "|"))
		}
		if why := outsideSchema(s, v); why != "" {
			return false, fmt.Sprintf("enum value %s %s", show(v), why)
		}
	}
	if old, ok := s["enum"].([]any); ok && sameSet(old, vals) {
		return false, "schema already has this enum"
	}
	if p.Kind == KindBoolString {
		for _, v := range vals {
			if sv, ok := v.(string); !ok || !boolWords[strings.ToLower(sv)] {
				return false, fmt.Sprintf("bool-string value %s is not a boolean word", show(v))
			}
		}
	}
	return true, "verified"
}

var boolWords = map[string]bool{"true": true, "false": true, "yes": true, "no": true}

func sameSet(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if equalJSON(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// outsideSchema says why v is not accepted by s's enum, const, bounds and
// lengths ("" when it is).
func outsideSchema(s ir.Schema, v any) string {
	if old, ok := s["enum"].([]any); ok {
		in := false
		for _, o := range old {
			if equalJSON(o, v) {
				in = true
				break
			}
		}
		if !in {
			return "is outside the existing enum"
		}
	}
	if c, ok := s["const"]; ok && !equalJSON(c, v) {
		return "differs from the existing const"
	}
	if bs, ok := branches(s); ok {
		in := false
		for _, b := range bs {
			if typeAccepts(b, v) && outsideSchema(b, v) == "" {
				in = true
				break
			}
		}
		if !in {
			return "matches no anyOf/oneOf branch"
		}
	}
	if f, ok := num(v); ok {
		if m, ok := num(s["minimum"]); ok && f < m {
			return fmt.Sprintf("is below minimum %s", show(s["minimum"]))
		}
		if m, ok := num(s["maximum"]); ok && f > m {
			return fmt.Sprintf("is above maximum %s", show(s["maximum"]))
		}
		if m, ok := num(s["exclusiveMinimum"]); ok && f <= m {
			return fmt.Sprintf("is not above exclusiveMinimum %s", show(s["exclusiveMinimum"]))
		}
		if m, ok := num(s["exclusiveMaximum"]); ok && f >= m {
			return fmt.Sprintf("is not below exclusiveMaximum %s", show(s["exclusiveMaximum"]))
		}
	}
	if str, ok := v.(string); ok {
		n := float64(len([]rune(str)))
		if m, ok := num(s["minLength"]); ok && n < m {
			return fmt.Sprintf("is shorter than minLength %s", show(s["minLength"]))
		}
		if m, ok := num(s["maxLength"]); ok && n > m {
			return fmt.Sprintf("is longer than maxLength %s", show(s["maxLength"]))
		}
	}
	return ""
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func isNumericType(s ir.Schema) bool {
	t := mainType(s)
	return t == "number" || t == "integer"
}

func verifyRange(p Proposal, s ir.Schema) (bool, string) {
	if !isNumericType(s) {
		return false, "range applies only to a number or integer schema"
	}
	keys := sortedKeys(p.To)
	for _, k := range keys {
		f, ok := num(p.To[k])
		if !ok {
			return false, fmt.Sprintf("%s must be a number", k)
		}
		old, has := num(s[k])
		if !has {
			continue
		}
		switch k {
		case "minimum", "exclusiveMinimum":
			if f < old {
				return false, fmt.Sprintf("%s %s would lower the existing %s", k, show(p.To[k]), show(s[k]))
			}
		default:
			if f > old {
				return false, fmt.Sprintf("%s %s would raise the existing %s", k, show(p.To[k]), show(s[k]))
			}
		}
		if f == old {
			return false, fmt.Sprintf("schema already has %s %s", k, show(s[k]))
		}
	}
	// The merged bounds must leave some value.
	merged := mergedView(s, p.To)
	lo, loEx, hasLo := lowerBound(merged)
	hi, hiEx, hasHi := upperBound(merged)
	if hasLo && hasHi && (lo > hi || (lo == hi && (loEx || hiEx))) {
		return false, "bounds would accept no value"
	}
	if mainType(s) == "integer" && hasLo && hasHi && math.Floor(hi) < math.Ceil(lo) {
		return false, "bounds would accept no integer"
	}
	if d, ok := s["default"]; ok {
		if why := outsideSchema(merged, d); why != "" {
			return false, "the existing default " + show(d) + " " + why
		}
	}
	return true, "verified"
}

func mergedView(s ir.Schema, to map[string]any) ir.Schema {
	m := make(ir.Schema, len(s)+len(to))
	for k, v := range s {
		m[k] = v
	}
	for k, v := range to {
		m[k] = v
	}
	return m
}

func lowerBound(s ir.Schema) (float64, bool, bool) {
	mi, hasMi := num(s["minimum"])
	ex, hasEx := num(s["exclusiveMinimum"])
	switch {
	case hasMi && hasEx:
		if ex >= mi {
			return ex, true, true
		}
		return mi, false, true
	case hasEx:
		return ex, true, true
	case hasMi:
		return mi, false, true
	}
	return 0, false, false
}

func upperBound(s ir.Schema) (float64, bool, bool) {
	ma, hasMa := num(s["maximum"])
	ex, hasEx := num(s["exclusiveMaximum"])
	switch {
	case hasMa && hasEx:
		if ex <= ma {
			return ex, true, true
		}
		return ma, false, true
	case hasEx:
		return ex, true, true
	case hasMa:
		return ma, false, true
	}
	return 0, false, false
}

func verifyLength(p Proposal, s ir.Schema) (bool, string) {
	t := mainType(s)
	for _, k := range sortedKeys(p.To) {
		switch k {
		case "minLength", "maxLength":
			if t != "string" {
				return false, fmt.Sprintf("%s applies only to a string schema", k)
			}
		case "minItems", "maxItems":
			if t != "array" {
				return false, fmt.Sprintf("%s applies only to an array schema", k)
			}
		}
		f, ok := num(p.To[k])
		if !ok || f < 0 || f != math.Trunc(f) {
			return false, fmt.Sprintf("%s must be a non-negative integer", k)
		}
		old, has := num(s[k])
		if !has {
			continue
		}
		if strings.HasPrefix(k, "min") && f < old {
			return false, fmt.Sprintf("%s %s would lower the existing %s", k, show(p.To[k]), show(s[k]))
		}
		if strings.HasPrefix(k, "max") && f > old {
			return false, fmt.Sprintf("%s %s would raise the existing %s", k, show(p.To[k]), show(s[k]))
		}
		if f == old {
			return false, fmt.Sprintf("schema already has %s %s", k, show(s[k]))
		}
	}
	merged := mergedView(s, p.To)
	for _, pair := range [][2]string{{"minLength", "maxLength"}, {"minItems", "maxItems"}} {
		lo, okLo := num(merged[pair[0]])
		hi, okHi := num(merged[pair[1]])
		if okLo && okHi && lo > hi {
			return false, fmt.Sprintf("%s above %s would accept no value", pair[0], pair[1])
		}
	}
	if d, ok := s["default"]; ok {
		if why := outsideSchema(merged, d); why != "" {
			return false, "the existing default " + show(d) + " " + why
		}
	}
	return true, "verified"
}

func verifyFormat(p Proposal, s ir.Schema) (bool, string) {
	f, ok := p.To["format"].(string)
	if !ok || !knownFormats[f] {
		return false, fmt.Sprintf("format %s is not one of date-time, date, email, uuid, uri", show(p.To["format"]))
	}
	if old, has := s["format"]; has {
		if old == f {
			return false, "schema already has format " + f
		}
		return false, "schema already has format " + show(old)
	}
	if mainType(s) != "string" {
		return false, "format applies only to a string schema"
	}
	return true, "verified"
}

func verifyDefault(p Proposal, s ir.Schema) (bool, string) {
	v, ok := p.To["default"]
	if !ok {
		return false, "static-default must set default"
	}
	if old, has := s["default"]; has {
		if equalJSON(old, v) {
			return false, "schema already has default " + show(old)
		}
		return false, "schema already has a different default " + show(old)
	}
	if mainType(s) == "" && len(schemaTypes(s)) == 0 {
		return false, "schema has no type: cannot check the default"
	}
	if !typeAccepts(s, v) {
		return false, fmt.Sprintf("default %s is not of the schema's type %s", show(v), strings.Join(schemaTypes(s), "|"))
	}
	if why := outsideSchema(s, v); why != "" {
		return false, "default " + show(v) + " " + why
	}
	return true, "verified"
}
