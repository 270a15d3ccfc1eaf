package pack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// policyTools: an automation service whose launch tool takes a template.
const policyTools = `{"tools": [
  {"name": "launch-job", "description": "Launch a job template.", "inputSchema": {"type": "object", "properties": {"template_id": {"type": "integer"}, "limit": {"type": "string"}}, "required": ["template_id"]}},
  {"name": "delete-host", "description": "Remove a host.", "inputSchema": {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]}},
  {"name": "list-hosts", "description": "List hosts.", "inputSchema": {"type": "object"}}
]}`

// TestPackPolicyKey: services[].policy reaches the runtime as rules (deny,
// allow by Python or wire name, approve), checked in programs before any
// upstream is needed (this pack has none: a call that passed the policy
// would fail for want of one).
func TestPackPolicyKey(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(policyTools), 0o644)
	p := testpack.Build(t, dir, `services:
  - name: automation
    mcp: tools.json
    policy:
      launch-job:
        allow: {template_id: [12, 14]}
        approve: true
      delete-host: {deny: "hosts are removed by the CMDB team"}
`)
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	got := runText(t, rt, `
for tid in [12, 13]:
    try:
        print(api.automation.launch_job(template_id=tid)["reason"])
    except PermissionError as e:
        print(e)
try:
    api.automation.delete_host(host="web-1")
except Exception as e:
    print(e)
`)
	for _, want := range []string{
		"held for approval by the pack's policy\n",
		"api.automation.launch_job was refused by the pack's policy: template_id=13 is not allowed; allowed: 12, 14\n",
		"api.automation.delete_host was not called: an earlier call in this program is waiting (1 call held for approval)",
		`Held for approval (1): api.automation.launch_job(template_id=12).`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestPackPolicyNamesChecked: a policy entry naming no tool's wire name, or
// an argument the tool lacks, or saying nothing, is a one-line error at gen.
func TestPackPolicyNamesChecked(t *testing.T) {
	cases := []struct{ policy, want string }{
		{"launch_job: {approve: true}", `policy of service automation: "launch_job" is not the wire name of any of its tools; "launch_job" is the Python name of "launch-job": grant tools by wire name`},
		{"lanch-job: {approve: true}", `policy of service automation: "lanch-job" is not the wire name of any of its tools; did you mean "launch-job"?`},
		{"launch-job: {allow: {template: [1]}}", `policy of launch-job: allow names "template", which is not one of its parameters; did you mean "template_id"?`},
		{"launch-job: {allow: {template_id: []}}", `policy of launch-job: allow.template_id lists no values: no call could be made; use deny to refuse the tool`},
		{"launch-job: {}", `policy of launch-job: the entry says nothing (give deny, allow or approve)`},
	}
	for _, c := range cases {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tools.json"), []byte(policyTools), 0o644)
		file := filepath.Join(dir, "codemode.yaml")
		os.WriteFile(file, []byte("services:\n  - name: automation\n    mcp: tools.json\n    policy:\n      "+c.policy+"\n"), 0o644)
		p, err := pack.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pack.Compile(context.Background(), p, pack.Options{})
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n got %v\nwant …%s", c.policy, err, c.want)
		}
	}
}
