package parse

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestYAMLScalarsConvertAsDecoded: scalar reads a plain untagged scalar
// itself, as yaml.v3 resolves it; it gives the value decoding it with
// yaml.v3 gives (decodedScalar), for every scalar of the corpus's YAML
// specs and for scalars YAML 1.1 and 1.2 read differently (booleans like
// yes and on, octal 0123 and 0o17, 1e3, timestamps, .inf, merge keys,
// tags, quoting).
func TestYAMLScalarsConvertAsDecoded(t *testing.T) {
	tricky := []string{
		"true", "True", "TRUE", "tRue", "false", "False", "FALSE", "yes", "Yes", "no", "on", "On", "off", "OFF", "y", "n", "Y", "N",
		"null", "Null", "NULL", "~", "", "nul",
		"0", "-0", "+0", "00", "0123", "-0123", "0o17", "-0o17", "0o19", "0x1F", "-0x1f", "0X1F", "0b101", "-0b101", "0b-1", "0b102", "0B1",
		"1_000", "1__0", "_1", "1_", "+12", "12", "-12", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616", "123456789012345678", "1234567890123456789",
		"1e3", "1E3", "-1e3", "+1e3", "1e+3", "1e-3", "1.5", "-1.5", "+1.5", ".5", "-.5", "+.5", "5.", "1.", "1.0", "1.50", "0.0", "-0.0",
		"1_000.5", "1e400", "-1e400", "1e-400", ".inf", ".Inf", ".INF", "+.inf", "-.inf", "-.Inf", ".nan", ".NaN", ".NAN", "inf", "nan", "Infinity",
		"0x1p-2", "0x1.8p1", "1.2.3", "1e", "e3", ".", "-", "+", "..", "._5", ".5_0",
		"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2002-1-1", "2001-12-14T21:59:43Z", "1999-99-99",
		"<<", "=", "!", "12:30:00", "190:20:30", "1:20", "0.1.2", "0o", "0x", "0b",
	}
	var docs []string
	for _, s := range tricky {
		for _, form := range []string{"%s", "'%s'", "\"%s\"", "!!str %s", "!!int %s", "!!float %s", "!!bool %s", "!!null %s", "!!timestamp %s", "! %s", "!x %s"} {
			docs = append(docs, "- "+strings.Replace(form, "%s", s, 1)+"\n")
		}
		docs = append(docs, "- |\n  "+s+"\n", "- >-\n  "+s+"\n")
	}
	files, _ := filepath.Glob("../testdata/corpus/openapi/*.yaml")
	goldens, _ := filepath.Glob("../testdata/golden/*/*.yaml")
	for _, f := range append(files, goldens...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	n := 0
	for _, doc := range docs {
		var root yaml.Node
		if yaml.Unmarshal([]byte(doc), &root) != nil {
			continue
		}
		var walk func(*yaml.Node)
		walk = func(x *yaml.Node) {
			if x.Kind == yaml.ScalarNode {
				n++
				if got, want := scalar(x), decodedScalar(x); !reflect.DeepEqual(got, want) {
					t.Errorf("%q (tag %s, style %d): %#v, decoded %#v", x.Value, x.Tag, x.Style, got, want)
				}
			}
			for _, c := range x.Content {
				walk(c)
			}
		}
		walk(&root)
	}
	if n < 100000 {
		t.Errorf("%d scalars compared", n)
	}
}
