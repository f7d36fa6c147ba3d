package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/config"
)

func agentCfg(provider, url string) config.Agent {
	c := config.Default().Agent
	c.Provider, c.Model, c.BaseURL = provider, "test-model", url
	return c
}

func getenv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// A Messages API that first says 429 (retry after 0 s), then answers; the
// second prompt hits the token limit.
func TestAnthropic(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "k" {
			t.Errorf("%s %s key %q", r.Method, r.URL.Path, r.Header.Get("X-Api-Key"))
		}
		if n == 1 {
			w.Header().Set("retry-after", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
			return
		}
		var req struct {
			Model     string `json:"model"`
			MaxTokens int    `json:"max_tokens"`
			Messages  []struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "test-model" || req.MaxTokens != 8192 || !strings.Contains(req.Messages[0].Content[0].Text, "PROMPT") {
			t.Errorf("request %+v", req)
		}
		stop := "end_turn"
		if strings.Contains(req.Messages[0].Content[0].Text, "LONG") {
			stop = "max_tokens"
		}
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"test-model","content":[{"type":"text","text":"### FILE: a.py"}],`+
			`"stop_reason":"`+stop+`","usage":{"input_tokens":12,"output_tokens":34}}`)
	}))
	defer srv.Close()
	a, err := New(agentCfg("anthropic", srv.URL), Options{Getenv: getenv(map[string]string{"ANTHROPIC_API_KEY": "k"})})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := a.Ask(context.Background(), "PROMPT", "")
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "### FILE: a.py" || ans.TokensIn != 12 || ans.TokensOut != 34 || ans.Truncated || calls.Load() != 2 {
		t.Errorf("answer %+v after %d calls", ans, calls.Load())
	}
	ans, err = a.Ask(context.Background(), "PROMPT LONG", "")
	if err != nil || !ans.Truncated || ans.StopReason != "max_tokens" {
		t.Errorf("a max_tokens answer: %+v %v", ans, err)
	}
	if !strings.Contains(a.Describe(), "model test-model") {
		t.Errorf("describe: %s", a.Describe())
	}
	if _, err := New(agentCfg("anthropic", ""), Options{Getenv: getenv(nil)}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

// A chat completions server, OpenAI-compatible, with the same 429 and a
// "length" finish.
func TestOpenAI(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/chat/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		if n == 1 {
			w.Header().Set("retry-after", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
			return
		}
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		if req["max_tokens"] != float64(8192) {
			t.Errorf("a compatible server gets max_tokens: %v", req)
		}
		finish := "stop"
		if strings.Contains(r.Header.Get("X-Test"), "long") || strings.Contains(string(mustJSON(req)), "LONG") {
			finish = "length"
		}
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"answer"},"finish_reason":"`+finish+`"}],"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}}`)
	}))
	defer srv.Close()
	a, err := New(agentCfg("openai", srv.URL), Options{Getenv: getenv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := a.Ask(context.Background(), "PROMPT", "")
	if err != nil || ans.Text != "answer" || ans.TokensIn != 5 || ans.TokensOut != 6 || ans.Truncated || calls.Load() != 2 {
		t.Fatalf("answer %+v %v after %d calls", ans, err, calls.Load())
	}
	ans, err = a.Ask(context.Background(), "PROMPT LONG", "")
	if err != nil || !ans.Truncated {
		t.Errorf("a length answer: %+v %v", ans, err)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

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
	cfg.Mode = "edit"
	cfg.Command = nil
	if _, err := New(cfg, Options{}); err == nil {
		t.Error("edit mode without a command")
	}
}
