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
func decodeYAML(file string, data []byte) (any, order, error) {
	var root yaml.Node
	if split, pieces, ok := splitYAML(data, true); ok {
		// Each piece was converted on its own goroutine too.
		if v, ord, ok := joinConverted(pieces); ok {
			return v, ord, nil
		}
		root = *split
	} else if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, errorf(file, "invalid YAML: %s", oneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil, errorf(file, "invalid YAML: empty document")
	}
	c := &yamlConv{order: order{}}
	v, err := c.value(root.Content[0], nil)
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
}

func (c *yamlConv) alias(n *yaml.Node, path []string) (any, error) {
	if c.active[n] {
		return nil, yamlErr("recursive alias")
	}
	if c.active == nil {
		c.active = map[*yaml.Node]bool{}
	}
	c.active[n] = true
	c.inAlias++
	defer func() { delete(c.active, n); c.inAlias-- }()
	return c.value(n, path)
}

type yamlErr string

func (e yamlErr) Error() string { return string(e) }

func (c *yamlConv) value(n *yaml.Node, path []string) (any, error) {
	if c.inAlias > 0 {
		c.aliased++
		if c.aliased > maxAliasValues {
			return nil, yamlErr("aliases expand to too many values")
		}
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 10000 {
		return nil, yamlErr("document nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], path)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		return c.alias(n.Alias, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			v, err := c.value(e, append(path, strconv.Itoa(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		var keys []string
		if recordKeys(path) {
			keys = make([]string, 0, len(n.Content)/2)
		}
		if err := c.mapping(n, path, out, &keys); err != nil {
			return nil, err
		}
		if keys != nil {
			var b strings.Builder
			for _, s := range path {
				b.WriteByte('/')
				b.WriteString(esc(s))
			}
			c.order[b.String()] = keys
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return nil, nil
}

func (c *yamlConv) mapping(n *yaml.Node, path []string, out map[string]any, keys *[]string) error {
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
					err := c.mapping(s, path, out, keys)
					delete(c.active, s)
					c.inAlias--
					if err != nil {
						return err
					}
				}
			}
			continue
		}
		key := k.Value
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			key = k.Alias.Value
		}
		v, err := c.value(vn, append(path, key))
		if err != nil {
			return err
		}
		if _, dup := out[key]; !dup && *keys != nil {
			*keys = append(*keys, key)
		}
		out[key] = v
	}
	return nil
}

// scalar converts a YAML scalar by its resolved tag.
func scalar(n *yaml.Node) any {
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
