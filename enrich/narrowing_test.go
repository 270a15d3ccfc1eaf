package enrich

import (
	"fmt"
	"testing"
)

// TestConditionalLiteralDefaultNotRequired pins two wrong narrowings: a
// literal default stated for one case made the parameter required, as if
// its default were runtime state (firecrawl_search.domainTools,
// GetSetupIntents.attach_to_self).
func TestConditionalLiteralDefaultNotRequired(t *testing.T) {
	for _, desc := range []string{
		"Include domain-matched tools for result URLs. Defaults to true when Alexandria is combined with web, news or images; semantic-only search leaves domain matching off.",
		"If present, the SetupIntent's payment method will be attached to the in-context Stripe Account.\n\nIt can only be used for this Stripe Account’s own money movement flows like InboundTransfer and OutboundTransfers. It cannot be set to true when setting up a PaymentMethod for a Customer, and defaults to false when attaching a PaymentMethod to a Customer.",
	} {
		if got := changes(t, desc, `{"type":"boolean"}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
	// A case that is itself runtime state still makes it one.
	got := changes(t, "Retention in days. Defaults to 30 when the account's plan allows it.", `{"type":"integer"}`, false)
	if got[KindRuntimeDefault] != `{"required":true}` || len(got) != 1 {
		t.Errorf("runtime case: got %v", got)
	}
}

// TestJointListLimitNoMaxItems pins a wrong narrowing: a limit on several
// lists together gave one of them maxItems 100
// (repos/add-app-access-restrictions.apps).
func TestJointListLimitNoMaxItems(t *testing.T) {
	for _, desc := range []string{
		"The GitHub Apps that have push access to this branch. Use the slugified version of the app name. **Note**: The list of users, apps, and teams in total is limited to 100 items.",
		"Labels to add. Labels and assignees combined may not exceed 10.",
	} {
		if got := changes(t, desc, `{"type":"array","items":{"type":"string"}}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
	got := changes(t, "The apps to add, limited to 100 items in total.", `{"type":"array","items":{"type":"string"}}`, false)
	if got[KindLength] != `{"maxItems":100}` {
		t.Errorf("a total of this list alone: got %v", got)
	}
}

// TestEnumNarrowsStrayExistingValue pins a miss: the consistency check
// refused every enum that narrows an existing enum, so `start_side`'s
// "Can be `LEFT` or `RIGHT`" could not drop the stray "side". An existing
// value like the listed ones, or an empty string, still blocks it.
func TestEnumNarrowsStrayExistingValue(t *testing.T) {
	desc := "The `start_side` is the starting side of the diff that the comment applies to. Can be `LEFT` or `RIGHT`. See `side` in this table for additional context."
	got := changes(t, desc, `{"type":"string","enum":["LEFT","RIGHT","side"]}`, false)
	if got[KindEnum] != `{"enum":["LEFT","RIGHT"]}` || len(got) != 1 {
		t.Errorf("start_side: got %v", got)
	}
	for _, schema := range []string{
		`{"type":"string","enum":["LEFT","RIGHT","CENTER"]}`,
		`{"type":"string","enum":["LEFT","RIGHT",""]}`,
	} {
		if got := changes(t, desc, schema, false); len(got) != 0 {
			t.Errorf("%s: got %v", schema, got)
		}
	}
}

// TestUntypedAnyOfOfStringsReadAsString pins a miss: a schema without a
// type whose anyOf branches are all strings (brave_video_search.safesearch)
// was not read as a string, so its value list was not proposed. The
// branches' own values still hold the proposal back: an empty-string
// branch is no URL.
func TestUntypedAnyOfOfStringsReadAsString(t *testing.T) {
	desc := "Filters search results for adult content. The following values are supported: 'off' - No filtering. 'moderate' - Filter out explicit content. 'strict' - Filter out explicit and suggestive content. The default value is 'moderate'."
	got := changes(t, desc, `{"default":"moderate","anyOf":[{"type":"string","const":"off"},{"type":"string","const":"moderate"},{"type":"string","const":"strict"}]}`, false)
	if got[KindEnum] != `{"enum":["off","moderate","strict"]}` || len(got) != 1 {
		t.Errorf("safesearch: got %v", got)
	}
	got = changes(t, "Filters results. The following values are supported: 'off' - none. 'strict' - all.", `{"anyOf":[{"type":"string","const":"off"},{"type":"string","const":"moderate"}]}`, false)
	if len(got) != 0 {
		t.Errorf("a value no branch has: got %v", got)
	}
	got = changes(t, "Customers are sent to this URL when they finish.", `{"anyOf":[{"type":"string","maxLength":5000},{"type":"string","enum":[""]}]}`, false)
	if len(got) != 0 {
		t.Errorf("an empty-string branch: got %v", got)
	}
	got = changes(t, "A positive integer.", `{"anyOf":[{"type":"object"},{"type":"integer"}]}`, false)
	if len(got) != 0 {
		t.Errorf("branches of two types: got %v", got)
	}
}

// TestDemonstrativeURLIsAURI pins a miss: "customers will be directed to
// this URL" (PostCheckoutSessions.cancel_url) names the value as a URL.
func TestDemonstrativeURLIsAURI(t *testing.T) {
	got := changes(t, "If set, Checkout displays a back button and customers will be directed to this URL if they decide to cancel payment and return to your website.", `{"type":"string","maxLength":5000}`, false)
	if got[KindFormat] != `{"format":"uri"}` || len(got) != 1 {
		t.Errorf("got %v", got)
	}
}

// TestOmittedMeansReferencedResourceAmount pins a miss: "If not provided,
// the full amount of the authorization will be captured" resolves the
// value from a referenced resource's state, a runtime default
// (PostTestHelpersIssuingAuthorizationsAuthorizationCapture.capture_amount).
func TestOmittedMeansReferencedResourceAmount(t *testing.T) {
	got := changes(t, "The amount to capture from the authorization. If not provided, the full amount of the authorization will be captured.", `{"type":"integer"}`, false)
	if got[KindRuntimeDefault] != `{"required":true}` || len(got) != 1 {
		t.Errorf("got %v", got)
	}
}

// TestBareAlternativesGrammar pins a miss: "Colour of the label, red or
// blue." gave nothing because bare words needed quotes or a strong
// introducer. Two sentence shapes read them; prose of the same surface
// shape does not.
func TestBareAlternativesGrammar(t *testing.T) {
	for desc, want := range map[string]string{
		"Colour of the label, red or blue.":                        `{"enum":["red","blue"]}`,
		"The state of the package, either active or deleted.":      `{"enum":["active","deleted"]}`,
		"Status of the record. Can be either deployed or retired.": `{"enum":["deployed","retired"]}`,
		"Travel mode, driving, walking or cycling.":                `{"enum":["driving","walking","cycling"]}`,
	} {
		got := changes(t, desc, `{"type":"string"}`, false)
		if got[KindEnum] != want || len(got) != 1 {
			t.Errorf("%q: got %v, want %s", desc, got, want)
		}
	}
	for _, desc := range []string{
		"Text to update, add, or remove.",
		"The files to be updated, renamed, or deleted.",
		"Path to a YAML file to apply (optional - use either manifest or filename).",
		"The name of the ref. This can be a branch, tag, or SHA.",
		"Use `string` if the item type is unknown or mixed.",
		"Colour of the label, red or blue, for example.",
		"Colour of the label, red and blue.",
		"Name of the branch, main or master.",
		"Colour of the label, red or blue or any other colour.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
	// A list holding the parameter's own name lists parameters.
	if _, _, ds := enrichOne("tool", "/properties/filename", "Source type of the manifest, manifest or filename.", mustSchema(t, `{"type":"string"}`), false); len(ds) != 0 {
		t.Errorf("own name: %+v", ds)
	}
}

// TestOmittedSelectsAnotherMechanism pins a wrong narrowing: "If omitted,
// the federated token is used directly (direct WIF)" made
// create-org-private-registry.service_account required, though leaving it
// out is a choice of its own.
func TestOmittedSelectsAnotherMechanism(t *testing.T) {
	for _, desc := range []string{
		"The GCP service account email to impersonate. Optional for `oidc_gcp` auth type. If omitted, the federated token is used directly (direct WIF).",
		"Key to sign with. If not given, the account password is used instead.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
}

// TestLinksAndTagsStrippedFirst: markdown links and HTML tags are stripped
// before the rules read a description, so "[text](url)" reads as its text,
// "<br>" ends a sentence and "<code>x</code>" is a code quote.
func TestLinksAndTagsStrippedFirst(t *testing.T) {
	for _, c := range []struct{ desc, schema, kind, want string }{
		{"Three-letter currency code. Defaults to [the account's currency](https://example.com/docs#default-currency).", `{"type":"string"}`, KindRuntimeDefault, `{"required":true}`},
		{"Billing mode.<br>One of <code>auto</code> or <code>manual</code>.", `{"type":"string"}`, KindEnum, `{"enum":["auto","manual"]}`},
		{"Page size, at most [100](https://example.com/limits).", `{"type":"integer"}`, KindRange, `{"maximum":100}`},
	} {
		got := changes(t, c.desc, c.schema, false)
		if got[c.kind] != c.want || len(got) != 1 {
			t.Errorf("%q: got %v, want %s %s", c.desc, got, c.kind, c.want)
		}
	}
	if got := changes(t, "The URL must contain `<id>` for the ticket number.", `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("a placeholder in code is no tag: got %v", got)
	}
}

// TestFreshSetMisses pins the fresh set's misses after its first score,
// each read by a general form rather than its own sentence:
// git/create-blob.encoding, orgs/create-webhook.name,
// orgs/create-invitation.email, GetExchangeRates.limit and
// git/create-commit.author.
func TestFreshSetMisses(t *testing.T) {
	for _, c := range []struct{ desc, schema, kind, want string }{
		{"The encoding used for `content`. Currently, `\"utf-8\"` and `\"base64\"` are supported.", `{"type":"string"}`, KindEnum, `{"enum":["utf-8","base64"]}`},
		{"Only `gzip` is accepted.", `{"type":"string"}`, KindEnum, `{"enum":["gzip"]}`},
		{"`small`, `medium` or `large` are the valid values.", `{"type":"string"}`, KindEnum, `{"enum":["small","medium","large"]}`},
		{"Must be passed as \"web\".", `{"type":"string"}`, KindEnum, `{"enum":["web"]}`},
		{"The kind; must be given as `hook`.", `{"type":"string"}`, KindEnum, `{"enum":["hook"]}`},
		{"**Required unless you provide `invitee_id`**. Email address of the person you are inviting.", `{"type":"string"}`, KindFormat, `{"format":"email"}`},
		{"Optional. The URL of the callback.", `{"type":"string"}`, KindFormat, `{"format":"uri"}`},
		{"Limit can range between 1 and total number of supported payout currencies.", `{"type":"integer"}`, KindRange, `{"minimum":1}`},
		{"Offset, between 0 and the length of the list.", `{"type":"integer"}`, KindRange, `{"minimum":0}`},
	} {
		got := changes(t, c.desc, c.schema, false)
		if got[c.kind] != c.want || len(got) != 1 {
			t.Errorf("%q: got %v, want %s %s", c.desc, got, c.kind, c.want)
		}
	}
	for _, c := range []struct{ desc, schema string }{
		{"It must be `true`.", `{"type":"string"}`},
		{"Currently, `json` and `xml` are supported for exports.", `{"type":"string"}`},
		{"`json` is supported, for example.", `{"type":"string"}`},
		{"Index between 0 and 10 apples.", `{"type":"string"}`},
	} {
		if got := changes(t, c.desc, c.schema, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", c.desc, got)
		}
	}
	// "By default, the `author` will be ..." holds for author only.
	desc := "Information about the author of the commit. By default, the `author` will be the authenticated user and the current date."
	for ptr, want := range map[string]int{"/properties/author": 1, "/properties/committer": 0} {
		_, _, ds := enrichOne("tool", ptr, desc, mustSchema(t, `{"type":"object"}`), false)
		n := 0
		for _, d := range ds {
			if d.Accepted && d.Kind == KindRuntimeDefault {
				n++
			}
		}
		if n != want {
			t.Errorf("%s: %d runtime defaults, want %d", ptr, n, want)
		}
	}
}

// TestDefaultForOneCaseIgnored pins a wrong narrowing found by taking the
// spec's own keywords away: "If you're creating a repository in an
// organization that has disabled repository projects, the default is
// `false`" (repos/create-in-org.has_projects, whose spec default is true)
// gave the default false. A default stated for one case is no default.
func TestDefaultForOneCaseIgnored(t *testing.T) {
	for _, c := range []struct{ desc, schema string }{
		{"Either `true` to enable projects for this repository or `false` to disable them. **Note:** If you're creating a repository in an organization that has disabled repository projects, the default is `false`, and if you pass `true`, the API returns an error.", `{"type":"boolean"}`},
		{"The source balance to use for this transfer. One of `bank_account`, `card`, or `fpx`. For most users, this will default to `card`.", `{"type":"string","enum":["bank_account","card","fpx"]}`},
	} {
		if got := changes(t, c.desc, c.schema, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", c.desc, got)
		}
	}
}

// TestOmissionPhrasings pins misses: "If no value is passed, the default
// is `x`" and "When you omit the amount, it defaults to ..." name the
// parameter's omission, so the default that follows is its own.
func TestOmissionPhrasings(t *testing.T) {
	for _, c := range []struct{ desc, schema, kind, want string }{
		{"Determines how to handle prorations. If no value is passed, the default is `create_prorations`.", `{"type":"string"}`, KindStaticDefault, `{"default":"create_prorations"}`},
		{"Amount to apply. When you omit the amount, it defaults to the remaining amount requested on the PaymentIntent.", `{"type":"integer"}`, KindRuntimeDefault, `{"required":true}`},
		{"Role to grant. If no role is specified, the team's `role` attribute will be used.", `{"type":"string"}`, KindRuntimeDefault, `{"required":true}`},
	} {
		got := changes(t, c.desc, c.schema, false)
		if got[c.kind] != c.want || len(got) != 1 {
			t.Errorf("%q: got %v, want %s %s", c.desc, got, c.kind, c.want)
		}
	}
}

// TestOmittedServiceActsIsNoDefault pins a wrong narrowing: "If no value
// is passed, Stripe will dynamically show relevant payment methods from
// your payment method settings" (PostPaymentLinks.payment_method_types)
// says what the service does when the parameter is left out, a choice of
// its own, not a value it takes.
func TestOmittedServiceActsIsNoDefault(t *testing.T) {
	desc := "The list of payment method types that customers can use. If no value is passed, Stripe will dynamically show relevant payment methods from your payment method settings (20+ payment methods supported)."
	if got := changes(t, desc, `{"type":"array","items":{"type":"string"}}`, false); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}

// TestOmissionPhraseAcrossLineBreakPanicked pins a crash: Spotify's
// device_id ("If\nnot supplied, the user's currently active device is the
// target.") put the omission phrase across a newline, which ended a
// sentence, so the phrase ran past its sentence and slicing the rest of
// the sentence panicked, taking pack.Compile down (Square and Box too). A
// newline inside a sentence is a soft wrap now; a phrase that does run
// over a sentence's end is not read.
func TestOmissionPhraseAcrossLineBreakPanicked(t *testing.T) {
	// Each reads as the description on one line does.
	for _, c := range []struct{ desc, oneLine string }{
		{"The id of the device this command is targeting. If\nnot supplied, the user's currently active device is the target.\n", "The id of the device this command is targeting. If not supplied, the user's currently active device is the target."},
		{"The id of the device this command is targeting. If\n  not supplied, the user's currently active device is the target.", "The id of the device this command is targeting. If not supplied, the user's currently active device is the target."},
		{"The id of the device. If not\nspecified, the user's default device will be used.", "The id of the device. If not specified, the user's default device will be used."},
		{"Page size. If\nnot specified, defaults\nto 20.", "Page size. If not specified, defaults to 20."},
	} {
		got, want := changes(t, c.desc, `{"type":"string"}`, false), changes(t, c.oneLine, `{"type":"string"}`, false)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: got %v, want %v as on one line", c.desc, got, want)
		}
	}
	// Over a blank line the phrase is not read, and nothing panics.
	if got := changes(t, "The id of the device. If\n\nNot supplied, the user's default device will be used.", `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("over a blank line: got %v, want no change", got)
	}
}

// TestSoftWrapKeepsSentence: a newline between a word and a lower-case
// word wraps a sentence; one after a full stop, before a capital or a list
// item, or a blank line ends it.
func TestSoftWrapKeepsSentence(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"Maximum number of items\nto return per page.", 1},
		{"Maximum number of items,\nat most 100.", 1},
		{"Maximum number of items.\nAt most 100.", 2},
		{"Maximum number of items\nAt most 100.", 2},
		{"One of:\n- open\n- closed", 3},
		{"Items to return\n\nper page", 2},
	} {
		if got := len(sentences(c.text)); got != c.want {
			t.Errorf("%q: %d sentences, want %d", c.text, got, c.want)
		}
	}
}
