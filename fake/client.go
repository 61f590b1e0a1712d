package fake

import (
	convo "github.com/convoapi/convo-go"
)

// Client returns an SDK client pointed at the server with the default
// company's key; opts are applied after those two, so they may override
// them (e.g. convo.WithAPIKey(other.APIKey()) for another company). It
// panics if the SDK refuses the options, which is a bug in the caller's
// options. With [WithInMemoryNetwork] the client goes through the server's
// in-memory connections (a convo.WithHTTPClient among opts replaces them, and
// the server becomes unreachable).
func (s *Server) Client(opts ...convo.Option) *convo.Client {
	base := []convo.Option{convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL())}
	if s.mem != nil {
		base = append(base, convo.WithHTTPClient(s.HTTPClient()))
	}
	c, err := convo.NewClient(append(base, opts...)...)
	if err != nil {
		panic("fake: convo.NewClient: " + err.Error())
	}
	return c
}
