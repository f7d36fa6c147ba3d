package llmtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// The Responses API as codex reads it, through the official SDK's stream: a
// message's text deltas, a function call's argument deltas, the usage, and an
// incomplete response at the token limit. (The Messages and chat completions
// APIs are read by the providers' tests in package agent.)
func TestResponses(t *testing.T) {
	dir := t.TempDir()
	srv := Start([]Step{
		{Text: "I run it.", Calls: []Call{{Name: "exec_command", Input: []byte(`{"cmd":"pytest -q"}`)}}, TokensIn: 7, TokensOut: 3},
		{Expect: `"function_call_output"`, Text: "cut", Stop: "max_tokens"},
	}, dir)
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	ask := func(input responses.ResponseNewParamsInputUnion) (responses.Response, string) {
		t.Helper()
		stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{Model: "m", Input: input})
		defer stream.Close()
		var text strings.Builder
		var final responses.Response
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "response.output_text.delta":
				text.WriteString(ev.Delta)
			case "response.completed", "response.incomplete":
				final = ev.Response
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		return final, text.String()
	}
	r, text := ask(responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")})
	if text != "I run it." || r.Status != "completed" || r.Usage.InputTokens != 7 || r.Usage.OutputTokens != 3 || len(r.Output) != 2 {
		t.Fatalf("%q %+v", text, r)
	}
	call := r.Output[1].AsFunctionCall()
	if call.Name != "exec_command" || call.Arguments != `{"cmd":"pytest -q"}` || call.CallID == "" {
		t.Fatalf("call %+v", call)
	}
	out := responses.ResponseInputItemParamOfFunctionCallOutput("1 passed")
	out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	r, _ = ask(responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}})
	if r.Status != "incomplete" || r.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("%+v", r)
	}
	log, err := os.ReadFile(filepath.Join(dir, "requests.log"))
	if err != nil || !strings.Contains(string(log), "002.json POST /v1/responses model=m step=2") {
		t.Errorf("log: %s %v", log, err)
	}
}

// A request the step does not expect, or after the script's end, is a 400
// that names the step; a reachability check takes no step.
func TestRefusals(t *testing.T) {
	srv := Start([]Step{{Expect: "never sent", Text: "x"}}, "")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	for _, want := range []string{`step 1 expects the request to match "never sent"`, "after the script's last step (1)"} {
		_, err := client.Chat.Completions.New(context.Background(), params)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, want) {
			t.Errorf("want a 400 saying %q: %v", want, err)
		}
	}
	if srv.Used() != 1 {
		t.Errorf("%d steps used", srv.Used())
	}
}
