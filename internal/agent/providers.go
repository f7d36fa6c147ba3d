package agent

import (
	"context"
	"fmt"
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
	return &anthropicAgent{cfg: cfg, client: anthropic.NewClient(opts...)}, nil
}

func (a *anthropicAgent) Describe() string {
	return fmt.Sprintf("the Anthropic Messages API (%s), model %s", host(a.cfg.BaseURL, "api.anthropic.com"), a.cfg.Model)
}

func (a *anthropicAgent) EditsFiles() bool { return false }

func (a *anthropicAgent) Ask(ctx context.Context, prompt, _ string) (*Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout.Duration)
	defer cancel()
	start := time.Now()
	msg, err := a.client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(a.cfg.Model),
		MaxTokens: int64(a.cfg.MaxTokens),
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	})
	if err != nil {
		return nil, fmt.Errorf("the Anthropic API: %w", err)
	}
	var text strings.Builder
	for _, block := range msg.Content {
		if block.Type == "text" {
			text.WriteString(block.Text)
		}
	}
	return &Answer{Text: text.String(), TokensIn: int(msg.Usage.InputTokens), TokensOut: int(msg.Usage.OutputTokens),
		StopReason: string(msg.StopReason), Truncated: msg.StopReason == anthropic.StopReasonMaxTokens, Elapsed: time.Since(start)}, nil
}

// openaiAgent is a model behind the chat completions API: OpenAI's, or any
// compatible server's (base_url).
type openaiAgent struct {
	cfg    config.Agent
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
	return &openaiAgent{cfg: cfg, client: openai.NewClient(opts...)}, nil
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
	}
	// OpenAI's own models take max_completion_tokens; compatible servers
	// mostly know only max_tokens
	if a.cfg.BaseURL == "" {
		params.MaxCompletionTokens = openai.Int(int64(a.cfg.MaxTokens))
	} else {
		params.MaxTokens = openai.Int(int64(a.cfg.MaxTokens))
	}
	start := time.Now()
	resp, err := a.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("the chat completions API: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("the chat completions API answered no choice")
	}
	c := resp.Choices[0]
	return &Answer{Text: c.Message.Content, TokensIn: int(resp.Usage.PromptTokens), TokensOut: int(resp.Usage.CompletionTokens),
		StopReason: c.FinishReason, Truncated: c.FinishReason == "length", Elapsed: time.Since(start)}, nil
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
