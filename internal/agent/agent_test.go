package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/git-tdd/git-tdd/internal/agent/llmtest"
	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/config"
)

func agentCfg(provider, url string) config.Agent {
	c := config.Default().Agent
	c.Provider, c.Model, c.BaseURL = provider, "test-model", url
	return c
}

func getenv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// serve starts the scripted model API of steps (a JSON array, see llmtest.Step).
func serve(t *testing.T, steps string) *llmtest.Server {
	t.Helper()
	var st []llmtest.Step
	if err := json.Unmarshal([]byte(steps), &st); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(st, "")
	t.Cleanup(srv.Close)
	return srv
}

// The providers through their SDKs, streamed, against the scripted server:
// a 429 and a 529 waited out (retry-after, retry-after-ms), the request as
// configured, the answer's text (not its tool calls), the provider's token
// counts, the bytes received reported as they arrive (and the tokens once
// the provider says), the token limit.
func TestProviders(t *testing.T) {
	for _, c := range []struct{ provider, key, request string }{
		{"anthropic", "ANTHROPIC_API_KEY", `"max_tokens":8192,"messages":\[\{"content":\[\{"text":"PROMPT".*"stream":true`},
		// a compatible server (base_url) gets max_tokens, and is asked for the usage
		{"openai", "OPENAI_API_KEY", `"max_tokens":8192,"stream_options":\{"include_usage":true\},"stream":true`},
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv := serve(t, `[{"status": 429}, {"expect": `+strconvQuote(c.request)+`, "text": "### FILE: a.py\nprint('hello, world')\n",
				"calls": [{"name": "ignored", "input": {"x": 1}}], "tokens_in": 12, "tokens_out": 34},
				{"status": 529, "headers": {"retry-after-ms": "10"}}, {"text": "### FILE: a.py\n`+"```"+`python\n", "stop": "max_tokens"}]`)
			meter := &Meter{}
			a, err := New(agentCfg(c.provider, srv.URL), Options{Getenv: getenv(map[string]string{c.key: "k"}),
				Meter: meter})
			if err != nil {
				t.Fatal(err)
			}
			ans, err := a.Ask(context.Background(), "PROMPT", "")
			if err != nil {
				t.Fatal(err)
			}
			if ans.Text != "### FILE: a.py\nprint('hello, world')\n" || ans.TokensIn != 12 || ans.TokensOut != 34 || ans.Truncated || srv.Used() != 2 {
				t.Errorf("answer %+v after %d requests", ans, srv.Used())
			}
			if bytes, tokens := meter.Received(); bytes < int64(len(ans.Text)) || tokens != 34 {
				t.Errorf("%d bytes and %d tokens reported received; the text alone is %d bytes, the answer 34 tokens", bytes, tokens, len(ans.Text))
			}
			ans, err = a.Ask(context.Background(), "PROMPT", "")
			if err != nil || !ans.Truncated || (ans.StopReason != "max_tokens" && ans.StopReason != "length") || srv.Used() != 4 {
				t.Errorf("a cut-off answer: %+v %v", ans, err)
			}
			if !strings.Contains(a.Describe(), "model test-model") {
				t.Errorf("describe: %s", a.Describe())
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Errors the SDK does not wait out, or waits out too often, are the call's
// error, naming the status; a missing key is refused before anything is sent.
func TestProviderErrors(t *testing.T) {
	for _, c := range []struct{ provider, steps, want string }{
		{"anthropic", `[{"status": 429}, {"status": 429}, {"status": 429}, {"status": 429}, {"text": "late"}]`, "429"},
		{"anthropic", `[{"status": 400}, {"text": "never"}]`, "400"},
		{"openai", `[{"status": 529}, {"status": 529}, {"status": 529}, {"status": 529}, {"text": "late"}]`, "529"},
		{"openai", `[{"status": 401}]`, "401"},
	} {
		srv := serve(t, c.steps)
		a, err := New(agentCfg(c.provider, srv.URL), Options{Getenv: getenv(map[string]string{"ANTHROPIC_API_KEY": "k"})})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Ask(context.Background(), "PROMPT", ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v", c.provider, c.steps, err)
		}
	}
	if _, err := New(agentCfg("anthropic", ""), Options{Getenv: getenv(nil)}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

// The Messages API overloaded mid-answer (an error event in the stream, after
// a 200): asked again, at most Retries times.
func TestAnthropicStreamError(t *testing.T) {
	defer func(b time.Duration) { streamBackoff = b }(streamBackoff)
	streamBackoff = time.Millisecond
	srv := serve(t, `[{"text": "a long answer, cut", "stream_error": "overloaded_error"}, {"text": "whole"},
		{"text": "a long answer, cut", "stream_error": "overloaded_error"}, {"text": "a long answer, cut", "stream_error": "api_error"}, {"text": "never"}]`)
	a, _ := New(agentCfg("anthropic", srv.URL), Options{Getenv: getenv(map[string]string{"ANTHROPIC_API_KEY": "k"}), Retries: 1})
	ans, err := a.Ask(context.Background(), "PROMPT", "")
	if err != nil || ans.Text != "whole" || srv.Used() != 2 {
		t.Errorf("%+v %v after %d requests", ans, err, srv.Used())
	}
	if _, err := a.Ask(context.Background(), "PROMPT", ""); err == nil || !strings.Contains(err.Error(), "api_error") || srv.Used() != 4 {
		t.Errorf("%v after %d requests", err, srv.Used())
	}
}

// A Messages API answer stopped by the model's context window is cut off as
// one stopped by max_tokens is; a refusal is not.
func TestAnthropicStops(t *testing.T) {
	srv := serve(t, `[{"text": "half", "stop": "model_context_window_exceeded"}, {"text": "no", "stop": "refusal"}]`)
	a, _ := New(agentCfg("anthropic", srv.URL), Options{Getenv: getenv(map[string]string{"ANTHROPIC_API_KEY": "k"})})
	for _, want := range []struct {
		stop      string
		truncated bool
	}{{"model_context_window_exceeded", true}, {"refusal", false}} {
		ans, err := a.Ask(context.Background(), "PROMPT", "")
		if err != nil || ans.StopReason != want.stop || ans.Truncated != want.truncated {
			t.Errorf("%+v %v, want %+v", ans, err, want)
		}
	}
}

// A compatible server that reports no usage: the tokens are counted here.
func TestOpenAINoUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"four"},"finish_reason":null}]}`+"\n\n"+
			`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	a, _ := New(agentCfg("openai", srv.URL), Options{Getenv: getenv(nil), Count: func(s string) int { return len(s) }})
	ans, err := a.Ask(context.Background(), "PROMPT", "")
	if err != nil || ans.Text != "four" || ans.TokensIn != 6 || ans.TokensOut != 4 {
		t.Errorf("%+v %v", ans, err)
	}
}

// A local command: the prompt on stdin, the answer on stdout, headless,
// stopped at the timeout.
func TestCommand(t *testing.T) {
	cfg := config.Default().Agent
	cfg.Command = []string{"cat"}
	// confined runs are the script tests' (the helper is git-tdd itself);
	// without settings, nothing runs
	unconfined := agentbox.Settings{Off: true}
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ask(context.Background(), "hello", t.TempDir()); err == nil {
		t.Fatal("a command ran without sandbox settings")
	}
	var warned strings.Builder
	a, _ = New(cfg, Options{Count: func(s string) int { return len(s) }, Sandbox: unconfined, Stderr: &warned})
	ans, err := a.Ask(context.Background(), "hello", t.TempDir())
	if !strings.Contains(warned.String(), "WITHOUT the sandbox (--no-sandbox)") {
		t.Errorf("an unconfined call is not warned: %q", warned.String())
	}
	if err != nil || ans.Text != "hello" || ans.TokensIn != 5 || ans.TokensOut != 5 {
		t.Fatalf("%+v %v", ans, err)
	}
	cfg.Command, cfg.Timeout = []string{"sleep", "30"}, config.Duration{Duration: 200 * time.Millisecond}
	a, _ = New(cfg, Options{Sandbox: unconfined})
	start := time.Now()
	if _, err := a.Ask(context.Background(), "", t.TempDir()); err == nil || !strings.Contains(err.Error(), "did not answer within") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %v after %v", err, time.Since(start))
	}
	cfg.Command = []string{"false"}
	a, _ = New(cfg, Options{Sandbox: unconfined})
	if _, err := a.Ask(context.Background(), "", t.TempDir()); err == nil {
		t.Error("a failing command is an error")
	}
	// claude -p says why it failed on stdout: its last lines, escaped, are in the error
	cfg.Command = []string{"sh", "-c", `echo one; echo two; printf 'three\n\nAPI Error: 400 \033[31mbad\n'; exit 1`}
	meter := &Meter{}
	a, _ = New(cfg, Options{Sandbox: unconfined, Meter: meter})
	_, err = a.Ask(context.Background(), "", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "exit status 1; its output ended: two / three / API Error: 400 ") || strings.Contains(err.Error(), "\033") || strings.Contains(err.Error(), "one") {
		t.Errorf("a failing command's output: %q", err)
	}
	if bytes, _ := meter.Received(); bytes != int64(len("one\ntwo\nthree\n\nAPI Error: 400 \033[31mbad\n")) {
		t.Errorf("%d bytes reported received", bytes)
	}
	cfg.Mode = "edit"
	cfg.Command = nil
	if _, err := New(cfg, Options{}); err == nil {
		t.Error("edit mode without a command")
	}
}
