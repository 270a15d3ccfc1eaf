package findtool

import (
	"fmt"
	"testing"
)

// TestStopWordIsNoAcronym: a stop word is never read as an acronym ("my"
// stood for "main yaml", "for" for "field option resource" where those
// phrases were common).
func TestStopWordIsNoAcronym(t *testing.T) {
	var docs []Doc
	for i := range 6 {
		docs = append(docs, Doc{"ci", tool(fmt.Sprintf("lint_config_%d", i), "Checks the main YAML file")})
	}
	docs = append(docs,
		Doc{"gh", tool("get_settings", "Get the settings")},
		Doc{"ci", tool("main_yaml_settings", "Settings of the main YAML file")},
	)
	x := New(docs)
	if got := first(x, "my settings"); got != "gh.get_settings" {
		t.Errorf("first %s, want gh.get_settings", got)
	}
}

// TestJoinSkipsOneLetterWords: words written apart meet a name that joins
// them, but not through a one-letter word ("delete a release" met
// deleteADevice by "deletea").
func TestJoinSkipsOneLetterWords(t *testing.T) {
	x := New([]Doc{
		{"zoom", tool("deleteADevice", "Delete a device")},
		{"gh", tool("repos_delete_release", "Delete a release")},
		{"ci", tool("get_release", "Get a release")},
		{"ci", tool("list_releases", "List releases")},
		{"ci", tool("update_release", "Update a release")},
	})
	if got := first(x, "delete a release"); got != "gh.repos_delete_release" {
		t.Errorf("first %s, want gh.repos_delete_release", got)
	}
}

// TestFileAnIssueIsNoFileTool: a word that is as often a noun, said as the
// query's verb, does not make a tool on that noun the answer ("file an
// issue" ranked create_or_update_file first).
func TestFileAnIssueIsNoFileTool(t *testing.T) {
	x := New([]Doc{
		{"gh", tool("create_issue", "Create a new issue in a GitHub repository", "title", "Issue title", "body", "Issue body")},
		{"gh", tool("create_or_update_file", "Create or update a single file in a GitHub repository", "path", "Path of the file", "content", "Content of the file")},
		{"gh", tool("get_file_contents", "Get the contents of a file or directory", "path", "Path of the file")},
		{"gh", tool("list_issues", "List the issues of a repository")},
		{"gh", tool("get_issue", "Get an issue")},
		{"gh", tool("update_issue", "Update an issue")},
		{"gh", tool("add_issue_comment", "Comment on an issue")},
	})
	for q, want := range map[string]string{
		"file an issue about the crash": "gh.create_issue",
		"get the file":                  "gh.get_file_contents",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}

// TestJoinCountsOnceInName: two query words that a name joins count once in
// a tool that has both of them ("list notification receivers" ranked
// ListNotification first: list, notification and the join
// listnotification).
func TestJoinCountsOnceInName(t *testing.T) {
	x := New([]Doc{
		{"twilio", op("ListNotification", "GET", "/Accounts/{AccountSid}/Notifications.json", "Retrieve a list of notifications belonging to the account")},
		{"twilio", op("FetchNotification", "GET", "/Accounts/{AccountSid}/Notifications/{Sid}.json", "Fetch a notification belonging to the account")},
		{"twilio", op("ListCall", "GET", "/Accounts/{AccountSid}/Calls.json", "Retrieves a collection of calls")},
		{"alertmanager", op("getReceivers", "GET", "/receivers", "Get list of all receivers (name of notification integrations)")},
		{"alertmanager", op("getAlerts", "GET", "/alerts", "Get a list of alerts")},
	})
	if got := first(x, "list notification receivers"); got != "alertmanager.getReceivers" {
		t.Errorf("first %s, want alertmanager.getReceivers", got)
	}
}

// TestRerunMeetsReRun: a query word that names write as two words meets
// them ("rerun" found nothing in actions_re_run_workflow).
func TestRerunMeetsReRun(t *testing.T) {
	x := New([]Doc{
		{"gh", op("actions/re-run-workflow", "POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun", "Re-run a workflow")},
		{"gh", op("actions/re-run-job", "POST", "/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun", "Re-run a job from a workflow run")},
		{"gh", op("actions/cancel-workflow-run", "POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/cancel", "Cancel a workflow run")},
		{"gh", op("actions/get-workflow", "GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}", "Get a workflow")},
	})
	if got := first(x, "rerun the failed workflow"); got != "gh.actions/re-run-workflow" {
		t.Errorf("first %s, want gh.actions/re-run-workflow", got)
	}
}

// TestProIsNoAbbreviationOfProtect: a long query word finds the short form
// names use for it only when the two are mostly in the same tools ("repo"
// for "repository"), not a word that merely starts it ("pro" accounts for
// "protect", "com" of URLs for "comment").
func TestProIsNoAbbreviationOfProtect(t *testing.T) {
	x := New([]Doc{
		{"gh", tool("repos_update_branch_protection", "Protect a branch of a repository", "repo", "The repository")},
		{"gh", tool("repos_get", "Get a repository", "repo", "The repository")},
		{"gh", tool("issues_create_comment", "Comment on an issue", "repo", "The repository")},
		{"zoom", tool("get_pro_settings", "Settings of a Pro account; see https://zoom.com")},
		{"zoom", tool("upgrade_to_pro", "Upgrade an account to Pro; see https://zoom.com")},
	})
	for w, want := range map[string]string{"repository": "repo", "protect": "", "comment": ""} {
		if got := x.abbreviation(w); got != want {
			t.Errorf("abbreviation(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestSilenceAnAlertMakesASilence: a verb no action's list has, said of a
// thing, favours the tool that writes what its name has as a noun
// ("silence the alert" ranked getSilences above postSilences), and a first
// word that is a noun ("replies to a thread") and a name that opens with
// the verb (merge_pull_request) are left as they were.
func TestSilenceAnAlertMakesASilence(t *testing.T) {
	x := New([]Doc{
		{"am", op("getSilences", "GET", "/silences", "Get a list of silences")},
		{"am", op("postSilences", "POST", "/silences", "Post a new silence or update an existing one")},
		{"am", op("deleteSilence", "DELETE", "/silence/{silenceID}", "Delete a silence by its ID")},
	})
	if got := first(x, "silence the alert"); got != "am.postSilences" {
		t.Errorf("first %s, want am.postSilences", got)
	}
	for q, want := range map[string]string{
		"silence an alert":       "silenc",
		"protect the branch":     "protect",
		"replies to a thread":    "",
		"create an issue":        "", // the lists' verbs have their intent
		"tag a release":          "", // too short to tell
		"commit history of a PR": "",
	} {
		if got := denominalVerb(q, queryAction(q)); got != want {
			t.Errorf("denominalVerb(%q) = %q, want %q", q, got, want)
		}
	}
	y := New([]Doc{
		{"gh", tool("merge_pull_request", "Merge a pull request")},
		{"gh", op("pulls/check-if-merged", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", "Check if a pull request has been merged")},
	})
	if got := first(y, "merge the pull request"); got != "gh.merge_pull_request" {
		t.Errorf("first %s, want gh.merge_pull_request", got)
	}
}

// TestDeprecatedBelowItsReplacement: of two tools that say the same, the
// one its API marks deprecated comes second, though its name fits the
// query better.
func TestDeprecatedBelowItsReplacement(t *testing.T) {
	old := op("teams/list-members", "GET", "/teams/{team_id}/members", "List team members")
	old.Deprecated = true
	x := New([]Doc{
		{"gh", old},
		{"gh", op("teams/list-members-in-org", "GET", "/orgs/{org}/teams/{team_slug}/members", "List team members")},
	})
	if got := first(x, "list team members"); got != "gh.teams/list-members-in-org" {
		t.Errorf("first %s, want gh.teams/list-members-in-org", got)
	}
}
