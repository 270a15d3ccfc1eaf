package findtool

import (
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// first is the "service.wire" of the best hit for q, "" for none.
func first(x *Index, q string) string {
	hits := x.Search(q, 1)
	if len(hits) == 0 {
		return ""
	}
	return string(hits[0].Service) + "." + string(hits[0].Tool.Wire)
}

func op(wire, method, path, summary string) *ir.Tool {
	return &ir.Tool{Wire: ir.WireName(wire), Py: ir.Ident(wire), Title: summary, HTTP: &ir.HTTPOp{Method: method, Path: path}}
}

// TestStatefulSetsMeetsStatefulSet: a compound written as one word in the
// query meets a name that spells it in camelCase parts, plural or not.
func TestStatefulSetsMeetsStatefulSet(t *testing.T) {
	x := New([]Doc{
		{"k8s", op("listAppsV1NamespacedStatefulSet", "GET", "/apis/apps/v1/namespaces/{namespace}/statefulsets", "list or watch objects of kind StatefulSet")},
		{"k8s", op("listAppsV1NamespacedDaemonSet", "GET", "/apis/apps/v1/namespaces/{namespace}/daemonsets", "list or watch objects of kind DaemonSet")},
		{"k8s", op("listCoreV1NamespacedConfigMap", "GET", "/api/v1/namespaces/{namespace}/configmaps", "list or watch objects of kind ConfigMap")},
	})
	for q, want := range map[string]string{
		"list statefulsets":   "k8s.listAppsV1NamespacedStatefulSet",
		"daemonsets":          "k8s.listAppsV1NamespacedDaemonSet",
		"show the configmaps": "k8s.listCoreV1NamespacedConfigMap",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}

// TestAddWebhookRanksCreateFirst: the query's verb picks, among tools on
// the same thing, the one that does it (HTTP method for OpenAPI, the name's
// verb for MCP).
func TestAddWebhookRanksCreateFirst(t *testing.T) {
	x := New([]Doc{
		{"gh", op("repos/delete-webhook", "DELETE", "/repos/{owner}/{repo}/hooks/{hook_id}", "Delete a repository webhook")},
		{"gh", op("repos/get-webhook", "GET", "/repos/{owner}/{repo}/hooks/{hook_id}", "Get a repository webhook")},
		{"gh", op("repos/create-webhook", "POST", "/repos/{owner}/{repo}/hooks", "Create a repository webhook")},
		{"gh", op("repos/update-webhook", "PATCH", "/repos/{owner}/{repo}/hooks/{hook_id}", "Update a repository webhook")},
		{"proj", tool("connect_project", "Connect to a project")},
		{"proj", tool("get_project", "Get a project")},
		{"proj", tool("create_project", "Create a project")},
	})
	for q, want := range map[string]string{
		"add a webhook":         "gh.repos/create-webhook",
		"remove the webhook":    "gh.repos/delete-webhook",
		"change a webhook":      "gh.repos/update-webhook",
		"make a new project":    "proj.create_project",
		"show me a webhook":     "gh.repos/get-webhook",
		"register a webhook":    "gh.repos/create-webhook",
		"which webhook is this": "gh.repos/get-webhook",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}

// TestServiceNamedInQueryFavoured: "... on gitlab", "... in the cluster"
// favour that service over another with the same tool.
func TestServiceNamedInQueryFavoured(t *testing.T) {
	x := New([]Doc{
		{"github_mcp_server", tool("create_issue", "Create a new issue in a repository")},
		{"gitlab_mcp_server", tool("create_issue", "Create a new issue in a project")},
		{"jira_mcp_server", tool("create_issue", "Create a new issue")},
		{"kubernetes", tool("kubectl_rollout", "Manage the rollout of a deployment in the cluster")},
		{"kubernetes", tool("kubectl_get", "Get resources in the cluster")},
		{"kubernetes", tool("kubectl_scale", "Scale a deployment in the cluster")},
		{"vercel", tool("restart_deployment", "Restart a deployment")},
	})
	for q, want := range map[string]string{
		"open an issue in jira":           "jira_mcp_server.create_issue",
		"create an issue on gitlab":       "gitlab_mcp_server.create_issue",
		"create an issue on github":       "github_mcp_server.create_issue",
		"roll out a deployment on vercel": "vercel.restart_deployment",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}

// TestPRMeansPullRequest: an acronym stands for the phrase it most often
// abbreviates in the indexed text; a long word finds the short form names
// use; words written apart meet a name that joins them.
func TestPRMeansPullRequest(t *testing.T) {
	var docs []Doc
	for _, w := range []string{"create", "list", "merge", "update", "get"} {
		docs = append(docs, Doc{"gh", tool(w+"_pull_request", w+" a pull request")})
	}
	docs = append(docs,
		Doc{"gh", tool("fork_pr_workflows", "Fork PR workflow settings")},
		Doc{"gh", tool("repo_get", "Get a repo")},
		Doc{"gh", tool("list_stars", "List stargazers")},
		Doc{"pets", tool("loginUser", "Logs user into the system")},
		Doc{"pets", tool("logoutUser", "Logs out the current user")},
	)
	x := New(docs)
	for q, want := range map[string]string{
		"merge my PR":                 "gh.merge_pull_request",
		"details of a repository":     "gh.repo_get",
		"log in a user":               "pets.loginUser",
		"log out the user":            "pets.logoutUser",
		"merge the pull requests now": "gh.merge_pull_request",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}

// TestPluralReadListsFirst: reading several things ranks the tool that
// lists them above the one that gets one.
func TestPluralReadListsFirst(t *testing.T) {
	x := New([]Doc{
		{"gh", op("pulls/get", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "Get a pull request")},
		{"gh", op("pulls/list", "GET", "/repos/{owner}/{repo}/pulls", "List pull requests")},
	})
	if got := first(x, "show the open pull requests"); got != "gh.pulls/list" {
		t.Errorf("plural: first %s", got)
	}
	if got := first(x, "get pull request 7"); got != "gh.pulls/get" {
		t.Errorf("singular: first %s", got)
	}
}
