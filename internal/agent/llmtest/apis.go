package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// answer is a step answered to one request.
type answer struct {
	Step
	model   string
	id      string
	in, out int
	delay   time.Duration
}

// cut reports whether the answer stops at a limit: its output tokens, or
// the model's context window.
func (a answer) cut() bool {
	return a.Stop == "max_tokens" || a.Stop == "model_context_window_exceeded"
}

// events writes server-sent events, or, for a request that did not ask for a
// stream, nothing until the whole answer.
type events struct {
	w      http.ResponseWriter
	stream bool
	delay  time.Duration
}

// send writes one event; name "" writes a data line alone (the chat API's).
func (e *events) send(name string, data any) {
	if !e.stream {
		return
	}
	if e.delay > 0 {
		time.Sleep(e.delay)
	}
	if h := e.w.Header(); h.Get("content-type") == "" {
		h.Set("content-type", "text/event-stream")
		h.Set("cache-control", "no-cache")
	}
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// whole writes a non-streamed answer.
func (e *events) whole(v any) {
	if e.stream {
		return
	}
	e.w.Header().Set("content-type", "application/json")
	json.NewEncoder(e.w).Encode(v)
}

// chunks cuts s into the pieces a stream sends, whole runes each.
func chunks(s string) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := min(len(r), 16)
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

// input is a call's input object, {} when the script gives none.
func (c Call) input() json.RawMessage {
	if len(c.Input) == 0 {
		return json.RawMessage("{}")
	}
	return c.Input
}

type obj = map[string]any

// messages answers the Anthropic Messages API: message_start, a text block
// and a tool_use block per call (content_block_start, deltas, stop),
// message_delta with the stop reason and usage, message_stop.
func (a answer) messages(e *events) {
	stop := "end_turn"
	switch {
	case a.Stop != "":
		stop = a.Stop
	case len(a.Calls) > 0:
		stop = "tool_use"
	}
	msgID := "msg_llmtest" + a.id
	e.send("message_start", obj{"type": "message_start", "message": obj{"id": msgID, "type": "message", "role": "assistant",
		"model": a.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": a.in, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	e.send("ping", obj{"type": "ping"})
	var content []any
	index := 0
	if a.Text != "" || len(a.Calls) == 0 {
		e.send("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": obj{"type": "text", "text": ""}})
		for _, c := range chunks(a.Text) {
			e.send("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "text_delta", "text": c}})
			if a.StreamError != "" && e.stream {
				e.send("error", obj{"type": "error", "error": obj{"type": a.StreamError, "message": "llmtest: step " + a.id + " fails mid-stream"}})
				return
			}
		}
		e.send("content_block_stop", obj{"type": "content_block_stop", "index": index})
		content = append(content, obj{"type": "text", "text": a.Text})
		index++
	}
	for i, c := range a.Calls {
		id := fmt.Sprintf("toolu_llmtest%s_%d", a.id, i+1)
		e.send("content_block_start", obj{"type": "content_block_start", "index": index,
			"content_block": obj{"type": "tool_use", "id": id, "name": c.Name, "input": obj{}}})
		for _, p := range chunks(string(c.input())) {
			e.send("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "input_json_delta", "partial_json": p}})
		}
		e.send("content_block_stop", obj{"type": "content_block_stop", "index": index})
		content = append(content, obj{"type": "tool_use", "id": id, "name": c.Name, "input": c.input()})
		index++
	}
	e.send("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"input_tokens": a.in, "output_tokens": a.out}})
	e.send("message_stop", obj{"type": "message_stop"})
	e.whole(obj{"id": msgID, "type": "message", "role": "assistant", "model": a.model, "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": obj{"input_tokens": a.in, "output_tokens": a.out}})
}

// chat answers the OpenAI Chat Completions API: chunks with a content delta
// and tool_calls deltas, one with the finish reason, one with the usage, and
// [DONE].
func (a answer) chat(e *events) {
	finish := "stop"
	switch {
	case a.cut():
		finish = "length"
	case a.Stop != "" && a.Stop != "end_turn":
		finish = a.Stop
	case len(a.Calls) > 0:
		finish = "tool_calls"
	}
	id, created := "chatcmpl-llmtest"+a.id, time.Now().Unix()
	chunk := func(choices []any, usage any) obj {
		return obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.model, "choices": choices, "usage": usage}
	}
	delta := func(d obj, finish any) []any { return []any{obj{"index": 0, "delta": d, "finish_reason": finish}} }
	e.send("", chunk(delta(obj{"role": "assistant", "content": ""}, nil), nil))
	for _, c := range chunks(a.Text) {
		e.send("", chunk(delta(obj{"content": c}, nil), nil))
	}
	var calls []any
	for i, c := range a.Calls {
		callID := fmt.Sprintf("call_llmtest%s_%d", a.id, i+1)
		e.send("", chunk(delta(obj{"tool_calls": []any{obj{"index": i, "id": callID, "type": "function",
			"function": obj{"name": c.Name, "arguments": ""}}}}, nil), nil))
		for _, p := range chunks(string(c.input())) {
			e.send("", chunk(delta(obj{"tool_calls": []any{obj{"index": i, "function": obj{"arguments": p}}}}, nil), nil))
		}
		calls = append(calls, obj{"id": callID, "type": "function", "function": obj{"name": c.Name, "arguments": string(c.input())}})
	}
	usage := obj{"prompt_tokens": a.in, "completion_tokens": a.out, "total_tokens": a.in + a.out}
	e.send("", chunk(delta(obj{}, finish), nil))
	e.send("", chunk([]any{}, usage))
	if e.stream {
		fmt.Fprint(e.w, "data: [DONE]\n\n")
	}
	msg := obj{"role": "assistant", "content": a.Text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	e.whole(obj{"id": id, "object": "chat.completion", "created": created, "model": a.model,
		"choices": []any{obj{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
}

// responses answers the OpenAI Responses API, always streamed (codex asks
// for a stream): response.created, a message item with its text deltas, a
// function_call item per call with its argument deltas, and
// response.completed, or response.incomplete at the token limit.
func (a answer) responses(e *events) {
	respID, created := "resp_llmtest"+a.id, time.Now().Unix()
	seq := 0
	send := func(typ string, fields obj) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		e.send(typ, fields)
	}
	response := func(status string, output []any, usage any) obj {
		r := obj{"id": respID, "object": "response", "created_at": created, "status": status, "model": a.model,
			"output": output, "usage": usage, "error": nil, "incomplete_details": nil}
		if status == "incomplete" {
			r["incomplete_details"] = obj{"reason": "max_output_tokens"}
		}
		return r
	}
	send("response.created", obj{"response": response("in_progress", []any{}, nil)})
	send("response.in_progress", obj{"response": response("in_progress", []any{}, nil)})
	var output []any
	index := 0
	if a.Text != "" || len(a.Calls) == 0 {
		itemID := "msg_llmtest" + a.id
		item := func(status string, content []any) obj {
			return obj{"id": itemID, "type": "message", "status": status, "role": "assistant", "content": content}
		}
		send("response.output_item.added", obj{"output_index": index, "item": item("in_progress", []any{})})
		part := func(text string) obj { return obj{"type": "output_text", "text": text, "annotations": []any{}} }
		send("response.content_part.added", obj{"item_id": itemID, "output_index": index, "content_index": 0, "part": part("")})
		for _, c := range chunks(a.Text) {
			send("response.output_text.delta", obj{"item_id": itemID, "output_index": index, "content_index": 0, "delta": c})
		}
		send("response.output_text.done", obj{"item_id": itemID, "output_index": index, "content_index": 0, "text": a.Text})
		send("response.content_part.done", obj{"item_id": itemID, "output_index": index, "content_index": 0, "part": part(a.Text)})
		done := item("completed", []any{part(a.Text)})
		send("response.output_item.done", obj{"output_index": index, "item": done})
		output = append(output, done)
		index++
	}
	for i, c := range a.Calls {
		itemID, callID := fmt.Sprintf("fc_llmtest%s_%d", a.id, i+1), fmt.Sprintf("call_llmtest%s_%d", a.id, i+1)
		item := func(status, args string) obj {
			return obj{"id": itemID, "type": "function_call", "status": status, "call_id": callID, "name": c.Name, "arguments": args}
		}
		send("response.output_item.added", obj{"output_index": index, "item": item("in_progress", "")})
		for _, p := range chunks(string(c.input())) {
			send("response.function_call_arguments.delta", obj{"item_id": itemID, "output_index": index, "delta": p})
		}
		send("response.function_call_arguments.done", obj{"item_id": itemID, "output_index": index, "arguments": string(c.input())})
		done := item("completed", string(c.input()))
		send("response.output_item.done", obj{"output_index": index, "item": done})
		output = append(output, done)
		index++
	}
	usage := obj{"input_tokens": a.in, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": a.out, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": a.in + a.out}
	if a.cut() {
		send("response.incomplete", obj{"response": response("incomplete", output, usage)})
		return
	}
	send("response.completed", obj{"response": response("completed", output, usage)})
}
