package parse

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxAliasValues bounds the values YAML aliases may expand to (a "billion
// laughs" document), beyond the document's own.
const maxAliasValues = 1_000_000

// decodeYAML decodes a YAML document into the same values decodeJSON makes
// (numbers as json.Number, mappings as map[string]any) and records key
// order the same way.
//
// A document in the block-style subset large specs use is read by
// decodeYAMLFast (stripe.yaml, 4.5 MB: 30 to 40 ms and 0.05 CPU s, 20 MB,
// against 150 to 175 ms, 0.27 to 0.32 CPU s and 75 MB by yaml.v3's nodes
// split over two cores, measured side by side); yaml.v3 decodes the rest.
// yaml.v3 building its nodes is most of its own decode (stripe.yaml on one
// goroutine: about 0.13 of 0.16 CPU s, 47 MB of 76). Measured side by side
// on stripe.yaml, the other maintained decoders are no faster: go.yaml.in/yaml/v3 is the same
// code (same allocations, same values on the corpus), go.yaml.in/yaml/v4
// allocates 5% more and reads "-0" as a float and a plain "<<" value as
// null, and github.com/goccy/go-yaml takes 4 to 5 times as long, allocates
// 6 times as much and reads 1e3 and timestamps as strings.
func decodeYAML(file string, data []byte) (any, order, error) {
	if v, ord, ok := decodeYAMLFast(data); ok {
		return v, ord, nil
	}
	return decodeYAMLNodes(file, data)
}

// decodeYAMLNodes is decodeYAML by yaml.v3's nodes, for any document (split
// over cores when large, see splitYAML), and its errors.
func decodeYAMLNodes(file string, data []byte) (any, order, error) {
	if _, pieces, ok := splitYAML(data, true); ok {
		// Each piece was converted on its own goroutine too.
		if v, ord, ok := joinConverted(pieces); ok {
			return v, ord, nil
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, errorf(file, "invalid YAML: %s", oneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil, errorf(file, "invalid YAML: empty document")
	}
	c := &yamlConv{order: order{}}
	v, err := c.value(root.Content[0])
	if err != nil {
		return nil, nil, errorf(file, "invalid YAML: %s", err)
	}
	return v, c.order, nil
}

type yamlConv struct {
	order   order
	aliased int                 // values produced while expanding aliases
	inAlias int                 // depth of alias expansion
	active  map[*yaml.Node]bool // alias targets being expanded
	depth   int
	path    []string // the keys down to the value being converted
	ptr     []byte   // scratch for the pointer of path
}

func (c *yamlConv) alias(n *yaml.Node) (any, error) {
	if c.active[n] {
		return nil, yamlErr("recursive alias")
	}
	if c.active == nil {
		c.active = map[*yaml.Node]bool{}
	}
	c.active[n] = true
	c.inAlias++
	defer func() { delete(c.active, n); c.inAlias-- }()
	return c.value(n)
}

type yamlErr string

func (e yamlErr) Error() string { return string(e) }

// value converts n, standing at c.path.
func (c *yamlConv) value(n *yaml.Node) (any, error) {
	if c.inAlias > 0 {
		c.aliased++
		if c.aliased > maxAliasValues {
			return nil, yamlErr("aliases expand to too many values")
		}
	}
	if c.depth >= 10000 {
		return nil, yamlErr("document nested too deeply")
	}
	c.depth++
	v, err := c.node(n)
	c.depth--
	return v, err
}

func (c *yamlConv) node(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		return c.alias(n.Alias)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		top := len(c.path)
		c.path = append(c.path, "")
		for i, e := range n.Content {
			c.path[top] = strconv.Itoa(i)
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		c.path = c.path[:top]
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		var keys []string
		if recordKeys(c.path) {
			keys = make([]string, 0, len(n.Content)/2)
		}
		if err := c.mapping(n, out, &keys); err != nil {
			return nil, err
		}
		if keys != nil {
			c.order[c.pointer()] = keys
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return nil, nil
}

// pointer is the JSON pointer of c.path.
func (c *yamlConv) pointer() string {
	b := c.ptr[:0]
	for _, s := range c.path {
		b = append(b, '/')
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '~':
				b = append(b, "~0"...)
			case '/':
				b = append(b, "~1"...)
			default:
				b = append(b, s[i])
			}
		}
	}
	c.ptr = b
	return string(b)
}

// mapping sets the entries of n, standing at c.path, in out, appending
// the keys it adds to *keys when that is not nil.
func (c *yamlConv) mapping(n *yaml.Node, out map[string]any, keys *[]string) error {
	top := len(c.path)
	c.path = append(c.path, "")
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			// "<<: *base" merges the keys of base (or of each in a list).
			src := []*yaml.Node{vn}
			if vn.Kind == yaml.AliasNode && vn.Alias != nil {
				src = []*yaml.Node{vn.Alias}
			}
			if vn.Kind == yaml.SequenceNode {
				src = vn.Content
			}
			c.path = c.path[:top]
			for _, s := range src {
				if s.Kind == yaml.AliasNode && s.Alias != nil {
					s = s.Alias
				}
				if s.Kind == yaml.MappingNode {
					if c.active[s] {
						return yamlErr("recursive alias")
					}
					if c.active == nil {
						c.active = map[*yaml.Node]bool{}
					}
					c.active[s] = true
					c.inAlias++
					err := c.mapping(s, out, keys)
					delete(c.active, s)
					c.inAlias--
					if err != nil {
						return err
					}
				}
			}
			c.path = append(c.path, "")
			continue
		}
		key := k.Value
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			key = k.Alias.Value
		}
		c.path[top] = key
		v, err := c.value(vn)
		if err != nil {
			return err
		}
		if *keys != nil {
			if _, dup := out[key]; !dup {
				*keys = append(*keys, key)
			}
		}
		out[key] = v
	}
	c.path = c.path[:top]
	return nil
}

// scalar converts a YAML scalar by its resolved tag. A plain scalar with
// no tag in the source (Style 0) has the tag yaml.v3 resolved from its
// text, and its value is read here as yaml.v3 reads it; anything else is
// decoded by yaml.v3.
func scalar(n *yaml.Node) any {
	if n.Style == 0 {
		switch n.Tag {
		case "!!str":
			return n.Value
		case "!!null":
			return nil
		case "!!bool":
			// Only true, True, TRUE, false, False and FALSE resolve so.
			return n.Value != "" && (n.Value[0] == 't' || n.Value[0] == 'T')
		case "!!int":
			if decimalInt(n.Value) {
				return json.Number(n.Value)
			}
			s := n.Value
			if strings.IndexByte(s, '_') >= 0 {
				s = strings.ReplaceAll(s, "_", "")
			}
			if i, err := strconv.ParseInt(s, 0, 64); err == nil {
				return json.Number(strconv.FormatInt(i, 10))
			}
		case "!!float":
			s := n.Value
			if strings.IndexByte(s, '_') >= 0 {
				s = strings.ReplaceAll(s, "_", "")
			}
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				if math.IsInf(f, 0) || math.IsNaN(f) {
					return n.Value
				}
				if json.Valid([]byte(s)) {
					return json.Number(s)
				}
				return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
	}
	return decodedScalar(n)
}

// decimalInt says whether s is an int64 written as strconv.FormatInt
// writes it (no sign but "-", no leading zero, no "_"), short enough not
// to overflow.
func decimalInt(s string) bool {
	d := s
	if d != "" && d[0] == '-' {
		d = d[1:]
	}
	if d == "" || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return s != "-0"
}

// decodedScalar converts a YAML scalar by its resolved tag, decoding it
// with yaml.v3.
func decodedScalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		var u uint64
		if n.Decode(&u) == nil {
			return json.Number(strconv.FormatUint(u, 10))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			s := strings.ReplaceAll(n.Value, "_", "")
			if _, err := strconv.ParseFloat(s, 64); err == nil && json.Valid([]byte(s)) {
				return json.Number(s)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return n.Value
}
