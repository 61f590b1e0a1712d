package redislimit

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"
	"unicode"

	convo "github.com/convoapi/convo-go"
)

// Option configures New.
type Option func(*config)

// The defaults of the options.
const (
	// DefaultPrefix begins the name of every Redis key of a limit.
	DefaultPrefix = "convo:limit:"
	// DefaultTTL is how long a limit's keys outlive their last use.
	DefaultTTL = 10 * time.Minute
	// DefaultTimeout bounds each wait for Redis.
	DefaultTimeout = 50 * time.Millisecond
)

// maxRate bounds a rate: the pace counts in microseconds of the Redis
// server's clock, and a million turns a second is unpaced in all but name.
const maxRate = 1e6

type config struct {
	rate     float64
	rateSet  bool
	name     string
	nameSet  bool
	prefix   string
	ttl      time.Duration
	timeout  time.Duration
	fallback convo.RateLimiter
	logger   *slog.Logger
	errs     []string
}

func (c *config) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// WithRate paces every process at perSecond in all, never faster and never
// learning: for a limit you know (from your contract). The pace is a
// generic cell rate algorithm on the Redis server's clock that lets a turn
// come up to four intervals early, and at most 25 ms (as convo.FixedRate
// does), so that a late timer or a round trip to Redis does not cost a
// turn; after an idle spell the first turns therefore come that much
// closer together, and never more than that. Every process sharing a limit
// should be given the same rate (each paces by its own, on the shared
// state). Without WithRate the rate is learnt, once for all processes (see
// the package documentation). A perSecond that is not positive and finite,
// or above a million, is refused by New.
func WithRate(perSecond float64) Option {
	return func(c *config) {
		if !(perSecond > 0) || math.IsInf(perSecond, 0) || perSecond > maxRate {
			c.fail("WithRate needs a positive rate up to %g a second, got %v", float64(maxRate), perSecond)
			return
		}
		c.rate, c.rateSet = perSecond, true
	}
}

// WithName names the limit's Redis keys with name instead of a hash of the
// API key, so that the limit outlives a rotation of the key (the processes
// with the old key and those with the new one then share it), or so that
// processes that do not hold the key name the same limit. The name is
// written in the keys as it is: it must be 1 to 128 printable characters
// without spaces or braces (braces would change the Redis Cluster slot),
// and it must not be the API key.
func WithName(name string) Option {
	return func(c *config) {
		switch {
		case name == "" || len(name) > 128:
			c.fail("WithName needs a name of 1 to 128 characters, got %d", len(name))
		case strings.ContainsAny(name, "{}") || strings.IndexFunc(name, notPrintable) >= 0:
			c.fail("WithName: the name must be printable, without spaces or braces")
		default:
			c.name, c.nameSet = name, true
		}
	}
}

// WithPrefix sets what begins the name of every Redis key of the limit
// (default DefaultPrefix, "convo:limit:"). It must be at most 128 printable
// characters without spaces or braces; it may be empty.
func WithPrefix(prefix string) Option {
	return func(c *config) {
		if len(prefix) > 128 || strings.ContainsAny(prefix, "{}") || strings.IndexFunc(prefix, notPrintable) >= 0 {
			c.fail("WithPrefix: the prefix must be at most 128 printable characters, without spaces or braces")
			return
		}
		c.prefix = prefix
	}
}

// WithTTL sets how long the limit's keys outlive their last use (default
// DefaultTTL, 10 minutes): every use sets it again, so nothing is left
// behind in Redis once the processes stop. A learnt rate unused for that
// long is forgotten, and is learnt again. The hold's key expires when the
// hold ends. A ttl under one second is refused by New.
func WithTTL(ttl time.Duration) Option {
	return func(c *config) {
		if ttl < time.Second {
			c.fail("WithTTL needs at least a second, got %v", ttl)
			return
		}
		c.ttl = ttl
	}
}

// WithTimeout sets the longest a Take or an Observe waits for Redis
// (default DefaultTimeout, 50 ms). A call that would wait longer is paced
// by the fallback limiter instead (see WithFallback). A timeout that is
// not positive, or above a minute, is refused by New.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 || d > time.Minute {
			c.fail("WithTimeout needs a positive timeout up to a minute, got %v", d)
			return
		}
		c.timeout = d
	}
}

// WithFallback sets the limiter that paces this process alone while Redis
// does not answer (default: a convo.AdaptiveRate of the Limiter's own,
// which needs nothing shared). A nil limiter is refused by New.
func WithFallback(l convo.RateLimiter) Option {
	return func(c *config) {
		if l == nil {
			c.fail("WithFallback: nil RateLimiter")
			return
		}
		c.fallback = l
	}
}

// WithLogger sets where the Limiter says that it falls back to its
// fallback limiter, and that Redis answers again: one record at Warn
// level each, per outage. Default: slog.Default(); a nil logger keeps the
// default. To log nothing, give slog.New(slog.DiscardHandler). No record
// holds the API key.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

func notPrintable(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }
