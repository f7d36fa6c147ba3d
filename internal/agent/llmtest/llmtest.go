// Package llmtest is a model API server for tests: it answers the Anthropic
// Messages API, the OpenAI Chat Completions API and the OpenAI Responses API
// from a script of answers, streamed as the real APIs stream them (server-sent
// events) or whole, so that the official SDKs and the real agent CLIs (claude,
// codex) run against it offline. Each request takes the next step of the
// script, whatever API it came by; what it sent is logged.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Step is one answer of the script.
type Step struct {
	// Status makes the answer an error: 429 (rate limited), 529 (overloaded),
	// 500, 400; Headers go with it (by default retry-after: 0).
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Text is what the model says, then Calls the tools it calls.
	Text  string `json:"text,omitempty"`
	Calls []Call `json:"calls,omitempty"`
	// Stop is why the model stopped, as the Messages API says it:
	// "end_turn" (the default, "tool_use" when there are calls), or
	// "max_tokens" or "model_context_window_exceeded", a limit: the answer is
	// cut off (finish_reason length, an incomplete response); another
	// ("refusal") is the Messages API's stop_reason and the chat API's
	// finish_reason.
	Stop string `json:"stop,omitempty"`
	// TokensIn and TokensOut are the usage reported; by default a quarter
	// of the bytes sent and answered.
	TokensIn  int `json:"tokens_in,omitempty"`
	TokensOut int `json:"tokens_out,omitempty"`
	// Expect is a regular expression the request's body must match (a tool's
	// result sent back, a prompt's heading); a request that does not is
	// answered 400, naming the step, and the client fails.
	Expect string `json:"expect,omitempty"`
	// StreamError cuts a streamed Messages API answer after its first text
	// chunk with an error event of this type ("overloaded_error"), as the
	// API does when it is overloaded mid-answer.
	StreamError string `json:"stream_error,omitempty"`
	// Delay is waited before each streamed chunk ("100ms").
	Delay string `json:"delay,omitempty"`
}

// Call is a tool call: the tool's name as the client declared it (claude's
// Write, Edit, Bash; codex's exec_command) and its input object.
type Call struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Server serves a script.
type Server struct {
	URL    string
	srv    *httptest.Server
	steps  []Step
	logDir string

	mu   sync.Mutex
	next int // the next step
	n    int // requests logged
}

// Load reads a script: a JSON array of steps.
func Load(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var steps []Step
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, s := range steps {
		if s.Expect != "" {
			if _, err := regexp.Compile(s.Expect); err != nil {
				return nil, fmt.Errorf("%s: step %d: %w", path, i+1, err)
			}
		}
		if s.Delay != "" {
			if _, err := time.ParseDuration(s.Delay); err != nil {
				return nil, fmt.Errorf("%s: step %d: %w", path, i+1, err)
			}
		}
	}
	return steps, nil
}

// Start serves steps on loopback; with logDir, each request's body is kept
// there (001.json, …) and a line per request appended to requests.log.
func Start(steps []Step, logDir string) *Server {
	s := &Server{steps: steps, logDir: logDir}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Used is how many steps have been answered.
func (s *Server) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	api := apiOf(r.URL.Path)
	if r.Method != http.MethodPost || api == "" {
		// a client's reachability check (claude sends HEAD /), or a list of
		// models: answered, and no step is taken
		s.log(r, body, "-")
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("content-type", "application/json")
			io.WriteString(w, `{"object":"list","data":[]}`)
		}
		return
	}
	if api == "count_tokens" {
		s.log(r, body, "-")
		w.Header().Set("content-type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4)
		return
	}
	s.mu.Lock()
	i := s.next
	if i < len(s.steps) {
		s.next++
	}
	s.mu.Unlock()
	s.log(r, body, fmt.Sprint(i+1))
	if i >= len(s.steps) {
		fail(w, api, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("llmtest: request %s %s after the script's last step (%d)", r.Method, r.URL.Path, len(s.steps)))
		return
	}
	st := s.steps[i]
	if st.Expect != "" && !regexp.MustCompile(st.Expect).Match(body) {
		fail(w, api, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("llmtest: step %d expects the request to match %q", i+1, st.Expect))
		return
	}
	if st.Status != 0 {
		if len(st.Headers) == 0 {
			w.Header().Set("retry-after", "0")
		}
		for k, v := range st.Headers {
			w.Header().Set(k, v)
		}
		fail(w, api, st.Status, errorType(st.Status), fmt.Sprintf("llmtest: step %d answers %d", i+1, st.Status))
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &req)
	a := answer{Step: st, model: req.Model, id: fmt.Sprintf("%03d", i+1), in: st.TokensIn, out: st.TokensOut}
	if a.in == 0 {
		a.in = max(1, len(body)/4)
	}
	if a.out == 0 {
		n := len(st.Text)
		for _, c := range st.Calls {
			n += len(c.Input)
		}
		a.out = max(1, n/4)
	}
	if st.Delay != "" {
		a.delay, _ = time.ParseDuration(st.Delay)
	}
	e := &events{w: w, stream: req.Stream || api == "responses", delay: a.delay}
	switch api {
	case "messages":
		a.messages(e)
	case "chat":
		a.chat(e)
	case "responses":
		a.responses(e)
	}
}

// apiOf names the API a path is of, "" for none.
func apiOf(path string) string {
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		return "count_tokens"
	case strings.HasSuffix(path, "/messages"):
		return "messages"
	case strings.HasSuffix(path, "/chat/completions"):
		return "chat"
	case strings.HasSuffix(path, "/responses"):
		return "responses"
	}
	return ""
}

// log keeps a request: its body, and a line saying which step it took.
func (s *Server) log(r *http.Request, body []byte, step string) {
	if s.logDir == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	name := fmt.Sprintf("%03d.json", s.n)
	if len(body) > 0 {
		os.WriteFile(filepath.Join(s.logDir, name), body, 0o644)
	}
	f, err := os.OpenFile(filepath.Join(s.logDir, "requests.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	var m struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &m)
	fmt.Fprintf(f, "%s %s %s model=%s step=%s\n", name, r.Method, r.URL.Path, m.Model, step)
}

// errorType is the Anthropic error type of a status.
func errorType(status int) string {
	switch status {
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	}
	return "api_error"
}

// fail answers an error as the API does.
func fail(w http.ResponseWriter, api string, status int, typ, msg string) {
	w.Header().Set("content-type", "application/json")
	w.Header().Set("request-id", "req_llmtest")
	w.WriteHeader(status)
	var body any
	if api == "messages" {
		body = map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}, "request_id": "req_llmtest"}
	} else {
		body = map[string]any{"error": map[string]any{"type": typ, "message": msg, "code": typ, "param": nil}}
	}
	json.NewEncoder(w).Encode(body)
}
