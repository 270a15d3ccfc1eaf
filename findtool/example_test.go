package findtool_test

import (
	"fmt"

	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/ir"
)

func Example() {
	x := findtool.New([]findtool.Doc{
		{Service: "github", Tool: &ir.Tool{Wire: "create_issue", Py: "create_issue", Description: "Create a new issue in a GitHub repository"}},
		{Service: "github", Tool: &ir.Tool{Wire: "list_issues", Py: "list_issues", Description: "List issues in a GitHub repository"}},
		{Service: "slack", Tool: &ir.Tool{Wire: "slack_post_message", Py: "slack_post_message", Description: "Post a new message to a Slack channel"}},
	})
	for _, h := range x.Search("open a new issue", 2) {
		fmt.Printf("api.%s.%s\n", h.Service, h.Tool.Py)
	}
	d, ok := x.Exact("api.slack.slack_post_message")
	fmt.Println(d.Tool.Wire, ok)
	// Output:
	// api.github.create_issue
	// api.github.list_issues
	// slack_post_message true
}
