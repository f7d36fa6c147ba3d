package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/git-tdd/git-tdd/internal/config"
)

// anthropicAgent is a model behind the Messages API.
type anthropicAgent struct {
	cfg    config.Agent
	o      Options
	client anthropic.Client
}

func newAnthropic(cfg config.Agent, o Options) (Agent, error) {
	if err := needModel(cfg); err != nil {
		return nil, err
	}
	name, key := apiKey(cfg, o, "ANTHROPIC_API_KEY")
	if key == "" {
		return nil, fmt.Errorf("no API key: set %s (or name another variable in [agent] api_key_env)", name)
	}
	opts := []aoption.RequestOption{aoption.WithAPIKey(key), aoption.WithMaxRetries(o.Retries)}
	if cfg.BaseURL != "" {
		opts = append(opts, aoption.WithBaseURL(cfg.BaseURL))
	}
	return &anthropicAgent{cfg: cfg, o: o, client: anthropic.NewClient(opts...)}, nil
}

func (a *anthropicAgent) Describe() string {
	return fmt.Sprintf("the Anthropic Messages API (%s), model %s", host(a.cfg.BaseURL, "api.anthropic.com"), a.cfg.Model)
}

func (a *anthropicAgent) EditsFiles() bool { return false }

func (a *anthropicAgent) Ask(ctx context.Context, prompt, _ string) (*Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout.Duration)
	defer cancel()
	start := time.Now()
	for try := 0; ; try++ {
		msg, err := a.stream(ctx, prompt)
		var apiErr *anthropic.Error
		// the SDK retries a 429 or 529 before the stream starts; an error
		// event in the stream (the API overloaded mid-answer) is retried here
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusOK && try < a.o.Retries &&
			(apiErr.Type() == "overloaded_error" || apiErr.Type() == "api_error") {
			select {
			case <-time.After(streamBackoff << try):
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("the Anthropic API: %w", err)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("the Anthropic API: %w", err)
		}
		var text strings.Builder
		for _, block := range msg.Content {
			if block.Type == "text" {
				text.WriteString(block.Text)
			}
		}
		return &Answer{Text: text.String(), TokensIn: int(msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens),
			TokensOut: int(msg.Usage.OutputTokens), StopReason: string(msg.StopReason),
			Truncated: msg.StopReason == anthropic.StopReasonMaxTokens || msg.StopReason == anthropic.StopReasonModelContextWindowExceeded,
			Elapsed:   time.Since(start)}, nil
	}
}

// streamBackoff is the wait before the first retry of a stream the API broke
// off; it doubles each time.
var streamBackoff = 500 * time.Millisecond

// stream asks once, streamed: a long answer is not cut by a proxy's idle
// timeout, and its progress can be shown.
func (a *anthropicAgent) stream(ctx context.Context, prompt string) (*anthropic.Message, error) {
	stream := a.client.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(a.cfg.Model),
		MaxTokens: int64(a.cfg.MaxTokens),
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	})
	defer stream.Close()
	var msg anthropic.Message
	var received int64
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, err
		}
		switch ev.Type {
		case "content_block_delta":
			received += int64(len(ev.Delta.Text) + len(ev.Delta.PartialJSON))
			a.o.Meter.Bytes(received)
		case "message_delta":
			a.o.Meter.Tokens(ev.Usage.OutputTokens)
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if msg.StopReason == "" {
		return nil, errors.New("the stream ended before the message did")
	}
	return &msg, nil
}

// openaiAgent is a model behind the chat completions API: OpenAI's, or any
// compatible server's (base_url).
type openaiAgent struct {
	cfg    config.Agent
	o      Options
	client openai.Client
}

func newOpenAI(cfg config.Agent, o Options) (Agent, error) {
	if err := needModel(cfg); err != nil {
		return nil, err
	}
	name, key := apiKey(cfg, o, "OPENAI_API_KEY")
	if key == "" && cfg.BaseURL == "" {
		return nil, fmt.Errorf("no API key: set %s (or name another variable in [agent] api_key_env)", name)
	}
	if key == "" {
		key = "unused" // a local server often needs none
	}
	opts := []ooption.RequestOption{ooption.WithAPIKey(key), ooption.WithMaxRetries(o.Retries)}
	if cfg.BaseURL != "" {
		opts = append(opts, ooption.WithBaseURL(cfg.BaseURL))
	}
	return &openaiAgent{cfg: cfg, o: o, client: openai.NewClient(opts...)}, nil
}

func (a *openaiAgent) Describe() string {
	return fmt.Sprintf("the OpenAI chat completions API (%s), model %s", host(a.cfg.BaseURL, "api.openai.com"), a.cfg.Model)
}

func (a *openaiAgent) EditsFiles() bool { return false }

func (a *openaiAgent) Ask(ctx context.Context, prompt, _ string) (*Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout.Duration)
	defer cancel()
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModel(a.cfg.Model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		// the usage comes in a last chunk of its own
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	// OpenAI's own models take max_completion_tokens; compatible servers
	// mostly know only max_tokens
	if a.cfg.BaseURL == "" {
		params.MaxCompletionTokens = openai.Int(int64(a.cfg.MaxTokens))
	} else {
		params.MaxTokens = openai.Int(int64(a.cfg.MaxTokens))
	}
	start := time.Now()
	stream := a.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var received int64
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, c := range chunk.Choices {
			received += int64(len(c.Delta.Content))
		}
		a.o.Meter.Bytes(received)
		a.o.Meter.Tokens(chunk.Usage.CompletionTokens)
	}
	if err := stream.Err(); err != nil {
		return nil, fmt.Errorf("the chat completions API: %w", err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return nil, errors.New("the chat completions API: the stream ended before the answer did")
	}
	c := acc.Choices[0]
	ans := &Answer{Text: c.Message.Content, TokensIn: int(acc.Usage.PromptTokens), TokensOut: int(acc.Usage.CompletionTokens),
		StopReason: c.FinishReason, Truncated: c.FinishReason == "length", Elapsed: time.Since(start)}
	if acc.Usage.PromptTokens == 0 && a.o.Count != nil {
		// a server that does not report usage: counted here, as for a command
		ans.TokensIn, ans.TokensOut = a.o.Count(prompt), a.o.Count(ans.Text)
	}
	return ans, nil
}

// host is the host a base URL names, or the provider's own.
func host(baseURL, def string) string {
	if baseURL == "" {
		return def
	}
	h := strings.TrimPrefix(strings.TrimPrefix(baseURL, "https://"), "http://")
	h, _, _ = strings.Cut(h, "/")
	return h
}
