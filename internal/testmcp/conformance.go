package testmcp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pngPixel is a 1x1 PNG: the fixtures' image.
var pngPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// wavSilence is a WAV header with no samples: the fixtures' audio.
var wavSilence = []byte("RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00")

// conformanceServer has the tools, resources and prompts the MCP
// conformance suite's server scenarios call by name (mode "conformance"),
// for running the suite through `codemode serve --direct` in front of it.
func conformanceServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testmcp-conformance", Version: "1"}, &mcp.ServerOptions{
		// The versions the suite's reference servers speak: requests to
		// the client (elicitation, sampling) and logs during a call.
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18"},
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-completed"}}}, nil
		},
	})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	image := &mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}
	embedded := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}
	empty := map[string]any{"type": "object", "properties": map[string]any{}}
	tool := func(name, desc string, in map[string]any, h mcp.ToolHandler) {
		if in == nil {
			in = empty
		}
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: in}, h)
	}
	tool("test_simple_text", "Returns a text block.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("This is a simple text response for testing."), nil
	})
	tool("test_image_content", "Returns an image block.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{image}}, nil
	})
	tool("test_audio_content", "Returns an audio block.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavSilence, MIMEType: "audio/wav"}}}, nil
	})
	tool("test_embedded_resource", "Returns an embedded resource.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{embedded}}, nil
	})
	tool("test_multiple_content_types", "Returns text, an image and a resource.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Multiple content types test:"}, image, embedded}}, nil
	})
	tool("test_tool_with_logging", "Logs three messages while it runs.", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "testmcp", Data: m}); err != nil {
				return nil, err
			}
		}
		return text("Tool with logging executed successfully"), nil
	})
	tool("test_tool_with_progress", "Reports progress three times.", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 0; i <= 100; i += 50 {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 100}); err != nil {
					return nil, err
				}
			}
		}
		return text("Tool with progress executed successfully"), nil
	})
	tool("test_reconnection", "Answers after a second and a half: long enough for a gateway polling its SSE streams (serve --sse-poll) to close the agent's stream first.", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return text("Reconnection test completed successfully"), nil
	})
	tool("test_error_handling", "Always fails.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "This tool intentionally returns an error for testing"}}}, nil
	})
	tool("test_sampling", "Asks the client's model.", map[string]any{"type": "object", "properties": map[string]any{"prompt": map[string]any{"type": "string"}}, "required": []string{"prompt"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 100, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Test prompt for sampling"}}}})
			if err != nil {
				return nil, err
			}
			t, _ := res.Content.(*mcp.TextContent)
			if t == nil {
				return text("LLM response: (not text)"), nil
			}
			return text("LLM response: " + t.Text), nil
		})
	elicit := func(message string, props map[string]any, required ...string) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			schema := map[string]any{"type": "object", "properties": props}
			if len(required) > 0 {
				schema["required"] = required
			}
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("User response: action=%s, content=%v", res.Action, res.Content)), nil
		}
	}
	tool("test_elicitation", "Asks the user for a username and email.", map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []string{"message"}},
		elicit("Please provide your information", map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		}, "username", "email"))
	tool("test_elicitation_sep1034_defaults", "Asks with default values (SEP-1034).", nil,
		elicit("Please review and update the form fields with defaults", map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		}))
	tool("test_elicitation_sep1330_enums", "Asks with every enum form (SEP-1330).", nil,
		elicit("Please select options from the enum fields", map[string]any{
			"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
			"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles", "oneOf": []any{
				map[string]any{"const": "value1", "title": "First Option"}, map[string]any{"const": "value2", "title": "Second Option"}, map[string]any{"const": "value3", "title": "Third Option"},
			}},
			"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)", "enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
			"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"anyOf": []any{
					map[string]any{"const": "value1", "title": "First Choice"}, map[string]any{"const": "value2", "title": "Second Choice"}, map[string]any{"const": "value3", "title": "Third Choice"},
				}}},
		}))

	tool("json_schema_2020_12_tool", "Takes a JSON Schema 2020-12 input (SEP-1613).", map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"$defs": map[string]any{"address": map[string]any{"type": "object", "properties": map[string]any{
			"street": map[string]any{"type": "string"}, "city": map[string]any{"type": "string"},
		}}},
		"properties": map[string]any{
			"name":    map[string]any{"type": "string"},
			"address": map[string]any{"$ref": "#/$defs/address"},
		},
		"additionalProperties": false,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("JSON Schema 2020-12 tool called with " + string(req.Params.Arguments)), nil
	})

	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A text resource.", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A binary resource.", MIMEType: "image/png"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: pngPixel}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to.", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Watched resource content."}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A resource per id.", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)}}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource.", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		uri := req.Params.Arguments["resourceUri"]
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
			{Role: "user", Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: image},
				{Role: "user", Content: &mcp.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		})
	return s
}

// asker speaks JSON-RPC by hand (mode "asker"), as servers that do not
// check the client's capabilities do: its tool ask sends elicitation/create
// whatever the client declared and waits for the answer, however long,
// then replies with what came back.
func asker() int {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	var call json.RawMessage
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		reply := func(id json.RawMessage, result string) {
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		}
		switch {
		case string(msg.ID) == `"ask-1"`:
			got := string(msg.Result)
			if msg.Error != nil {
				got = "error: " + msg.Error.Message
			}
			text, _ := json.Marshal("got " + got)
			reply(call, `{"content":[{"type":"text","text":`+string(text)+`}]}`)
		case msg.Method == "initialize":
			reply(msg.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"asker","version":"1"}}`)
		case msg.Method == "tools/list":
			reply(msg.ID, `{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}`)
		case msg.Method == "tools/call":
			call = msg.ID
			fmt.Println(`{"jsonrpc":"2.0","id":"ask-1","method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
		default:
			reply(msg.ID, `{}`)
		}
	}
	return 0
}
