// Package llm is the model client: calls to an OpenAI-compatible chat completions endpoint with
// their timeouts and retries, the structured reply of a debate turn and its validation, token
// counting, and prices.
package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// DefaultModel is used when neither the perspective nor DEBATEBOT_MODEL names one.
const DefaultModel = "gpt-4o-mini"

// DefaultMaxRetries bounds the retries of a model call on 429 and 5xx.
const DefaultMaxRetries = 3

// DefaultRequestTimeout bounds one model request.
const DefaultRequestTimeout = 120 * time.Second

// Options configure the model calls of one debate (or of one dialectic debate).
type Options struct {
	APIKey  string
	BaseURL string
	// Model is the default model; a perspective may name its own.
	Model string
	// MaxRetries bounds retries of 429 and 5xx (with exponential backoff and jitter that honours
	// Retry-After and retry-after-ms).
	MaxRetries int
	// RequestTimeout bounds each model request (each retry has its own); a request that times out
	// is retried like a 5xx. Default DefaultRequestTimeout; negative: no timeout but the phase's.
	RequestTimeout time.Duration
	// ContextTokens is the budget for the change in the opening prompt.
	ContextTokens int
	// PerAgent gives every agent its own call in every phase: turns written independently, at
	// several times the tokens. By default one call per phase speaks for the whole panel.
	PerAgent bool
	Prices   PriceTable
	// HTTPClient replaces the default transport (tests, proxies).
	HTTPClient option.HTTPClient
}

// Client makes the calls of one model through an OpenAI-compatible chat completions endpoint,
// with the retries Call describes, and prices what they spent.
type Client struct {
	API    openai.Client
	Model  string
	Prices PriceTable

	MaxRetries     int
	RequestTimeout time.Duration
}

// Completion is the outcome of one model call with its retries.
type Completion struct {
	Content, Finish string
	Usage           voting.Usage
	Notes           []string
	Err             error
	// Transient is set on a call that failed the way retries are for (a 5xx, a 429, a lost
	// connection) until they ran out: the same call may be answered later. A refusal (another
	// 4xx) or a timeout the call does not retry is not transient.
	Transient bool
}

// Complete makes one chat completion call of a debate's turn, its reply held to ReplySchema.
// Each request has its own timeout; a request that times out, fails to connect, or is answered
// 408, 409, 429 or 5xx is retried up to MaxRetries, after the delay the server asks for
// (Retry-After, retry-after-ms) or an exponential backoff with jitter; waiting honours ctx.
// cacheKey (the debate's id) is sent as prompt_cache_key, so that the provider routes the calls
// of one debate to the same prompt cache.
func (cl *Client) Complete(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, limit int, cacheKey string) (out Completion) {
	return cl.Call(ctx, cl.params(msgs, limit, cacheKey, "debate_turn", ReplySchema))
}

// params is a structured call's parameters: its reply held to schema, at most limit tokens
// (0: the model's own limit), under the prompt cache key (none when "").
func (cl *Client) params(msgs []openai.ChatCompletionMessageParamUnion, limit int, cacheKey, name string, schema map[string]any) openai.ChatCompletionNewParams {
	params := openai.ChatCompletionNewParams{
		Model:    cl.Model,
		Messages: msgs,
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{
			JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema, Strict: openai.Bool(true)},
		}},
	}
	if limit > 0 {
		params.MaxCompletionTokens = openai.Int(int64(limit))
	}
	if cacheKey != "" {
		params.PromptCacheKey = openai.String(cacheKey)
	}
	return params
}

// Call makes one chat completion call with the retries Complete describes.
func (cl *Client) Call(ctx context.Context, params openai.ChatCompletionNewParams) Completion {
	return cl.call(ctx, params, true)
}

// call is Call; a request that timed out is asked again only when retryTimeouts is set.
func (cl *Client) call(ctx context.Context, params openai.ChatCompletionNewParams, retryTimeouts bool) (out Completion) {
	log := zerolog.Ctx(ctx)
	for attempt := 0; ; attempt++ {
		resp, httpResp, err := cl.once(ctx, params)
		if err == nil {
			u := voting.Usage{
				Prompt: resp.Usage.PromptTokens, Completion: resp.Usage.CompletionTokens,
				CachedPrompt: resp.Usage.PromptTokensDetails.CachedTokens, Calls: 1,
			}
			u.CostUSD = cl.Prices.Cost(cl.Model, u)
			out.Usage.Add(u)
			if len(resp.Choices) == 0 {
				out.Err = fmt.Errorf("model %s returned no choices", cl.Model)
				return out
			}
			out.Content, out.Finish = resp.Choices[0].Message.Content, string(resp.Choices[0].FinishReason)
			return out
		}
		retry, timedOut := cl.retryable(ctx, err, httpResp)
		if timedOut {
			out.Notes = append(out.Notes, fmt.Sprintf("model %s did not answer within %s (request %d)", cl.Model, cl.RequestTimeout, attempt+1))
		}
		if !retry || attempt >= cl.MaxRetries || (timedOut && !retryTimeouts) {
			out.Err, out.Transient = err, retry && (retryTimeouts || !timedOut)
			if retry && attempt > 0 {
				out.Err = fmt.Errorf("%w (gave up after %d tries)", err, attempt+1)
			}
			return out
		}
		delay := retryDelay(httpResp, attempt)
		log.Warn().Err(err).Str("model", cl.Model).Int("attempt", attempt+1).Dur("retry_in", delay).Msg("model call failed; retrying")
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			out.Err = fmt.Errorf("model %s: gave up retrying: %w", cl.Model, ctx.Err())
			return out
		}
	}
}

// errRequestTimeout is a request that got no answer within the request timeout.
var errRequestTimeout = errors.New("request timed out")

// once is one HTTP request under the request timeout.
func (cl *Client) once(ctx context.Context, params openai.ChatCompletionNewParams) (*openai.ChatCompletion, *http.Response, error) {
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if cl.RequestTimeout > 0 {
		rctx, cancel = context.WithTimeoutCause(ctx, cl.RequestTimeout, errRequestTimeout)
	}
	defer cancel()
	var httpResp *http.Response
	resp, err := cl.API.Chat.Completions.New(rctx, params, option.WithResponseInto(&httpResp))
	if err == nil {
		return resp, httpResp, nil
	}
	var apiErr *openai.Error
	switch {
	case ctx.Err() != nil:
		return nil, nil, fmt.Errorf("model %s call stopped: %w", cl.Model, ctx.Err())
	case errors.Is(context.Cause(rctx), errRequestTimeout):
		return nil, nil, fmt.Errorf("model %s did not answer within %s: %w", cl.Model, cl.RequestTimeout, errRequestTimeout)
	case errors.As(err, &apiErr):
		return nil, apiErr.Response, fmt.Errorf("model %s answered %d: %s", cl.Model, apiErr.StatusCode, scan.Clip(apiErr.Message, 200))
	}
	return nil, httpResp, fmt.Errorf("model %s call failed: %w", cl.Model, err)
}

// retryable says whether a failed request is tried again, and whether it timed out.
func (cl *Client) retryable(ctx context.Context, err error, resp *http.Response) (retry, timedOut bool) {
	if ctx.Err() != nil {
		return false, false
	}
	if errors.Is(err, errRequestTimeout) {
		return true, true
	}
	if resp == nil {
		return true, false // no answer: a connection error
	}
	switch resp.Header.Get("x-should-retry") {
	case "true":
		return true, false
	case "false":
		return false, false
	}
	switch c := resp.StatusCode; {
	case c == http.StatusRequestTimeout, c == http.StatusConflict, c == http.StatusTooManyRequests, c >= 500:
		return true, false
	}
	return false, false
}

// retryDelay is what the server asks for (retry-after-ms, Retry-After in seconds or as a date)
// when under a minute, else 0.5 s doubling per attempt up to 8 s, less up to a quarter of jitter.
func retryDelay(resp *http.Response, attempt int) time.Duration {
	if resp != nil {
		if ms, err := strconv.ParseFloat(resp.Header.Get("retry-after-ms"), 64); err == nil && ms >= 0 && ms < 60e3 {
			return time.Duration(ms * float64(time.Millisecond))
		}
		if h := resp.Header.Get("Retry-After"); h != "" {
			d := time.Duration(-1)
			if sec, err := strconv.ParseFloat(h, 64); err == nil {
				d = time.Duration(sec * float64(time.Second))
			} else if at, err := http.ParseTime(h); err == nil {
				d = time.Until(at)
			}
			if d >= 0 && d < time.Minute {
				return d
			}
		}
	}
	d := min(time.Duration(float64(500*time.Millisecond)*math.Pow(2, float64(attempt))), 8*time.Second)
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// WithDefaults fills what the options leave unset: the model, retries, prices and timeout.
func (o Options) WithDefaults() Options {
	if o.Model == "" {
		o.Model = DefaultModel
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	return o
}

// API is the model's API client. Retries are the Client's own (Call), so that a request that
// times out is retried like a 5xx and waiting between tries honours the phase's context.
func (o Options) API() openai.Client {
	opts := []option.RequestOption{option.WithAPIKey(o.APIKey), option.WithMaxRetries(0)}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return openai.NewClient(opts...)
}
