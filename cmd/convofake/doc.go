// Command convofake serves the fake messaging API (package
// github.com/convoapi/convo-go/fake) as a standalone HTTP server: for the CI
// of consumers written in other languages, and for trying the API with curl.
//
// It listens on 127.0.0.1:8080 with built-in demo data (fake.DemoSeed) and
// prints, on stdout, the base URL, the API key of the demo company and the
// token of the admin API, as lines a shell can source:
//
//	$ go run ./cmd/convofake
//	# convofake: the fake messaging API is listening
//	CONVO_BASE_URL=http://127.0.0.1:8080/v1
//	CONVO_API_KEY=fake-api-key
//	CONVOFAKE_ADMIN_URL=http://127.0.0.1:8080/_fake
//	CONVOFAKE_ADMIN_TOKEN=5c1f…
//	# clock: real
//
// Install it with go install github.com/convoapi/convo-go/cmd/convofake@latest,
// or pin it in a module with go get -tool (Go 1.24+) and run go tool convofake.
//
// Every request is logged on stderr, one line each (method, path, status,
// duration; --log-format text or json). API keys, the admin token, query
// strings and bodies are never logged.
//
// Flags (convofake -h prints them with their defaults):
//
//	--addr HOST:PORT        where the API listens (default 127.0.0.1:8080;
//	                        port 0: any free port). Beyond loopback (:8080 in
//	                        a container) the admin API is not served there
//	                        unless --admin-addr or --admin-on-public says so.
//	--admin-addr HOST:PORT  a listener of its own for the admin API.
//	--admin-on-public       serve the admin API on a non-loopback --addr.
//	--seed FILE             load FILE (the fake's JSON seed format, see
//	                        fake/SEED.md) instead of the demo data.
//	--api-key KEY           API key of the default company. Without the
//	                        flag: the seed file's companies[0].api_key, else
//	                        fake-api-key; with it: KEY, even over the file's.
//	--clock CLOCK           real, frozen or frozen:<RFC 3339 time>. Without
//	                        the flag: frozen at the seed file's "now" when it
//	                        has one, else real; with it: CLOCK.
//	--rate-limit N          requests per second per API key (0: no limit).
//	--rate-burst N          bucket size of the rate limit.
//	--anomaly-cache DURATION anomaly report cache (default 5m; 0: none).
//	--journal-limit N       requests the journal keeps (default 10000).
//	--journal-bytes SIZE    memory the journal may use (default 32MiB).
//	--log-format FORMAT     text or json.
//	--admin-token TOKEN     admin token (default: random, printed at start).
//	--public-url URL        base of the temporary attachment URLs.
//
// Exit codes: 0 after SIGINT or SIGTERM (a graceful shutdown) or -h; 1 when
// the server stops on an error after it started; 2 when it cannot start (a
// bad flag, a bad seed file, an address it cannot listen on), with what to
// try (a port in use: --addr 127.0.0.1:0).
//
// # A curl walkthrough
//
//	$ go run ./cmd/convofake --clock=frozen:2026-11-22T10:00:00Z > convofake.env &
//	$ set -a; . ./convofake.env; set +a     # once it has started
//	$ auth="Authorization: Bearer $CONVO_API_KEY"
//	$ admin="Authorization: Bearer $CONVOFAKE_ADMIN_TOKEN"
//	$ curl -s -H "$auth" "$CONVO_BASE_URL/channels"
//	$ curl -s -H "$auth" "$CONVO_BASE_URL/conversations?status=all&limit=5"
//	$ curl -s -H "$auth" "$CONVO_BASE_URL/conversations/<conversation id>/messages?limit=10"
//	$ curl -s -H "$auth" "$CONVO_BASE_URL/conversations/anomalies?include=unassigned,automation_only"
//	$ curl -s -H "$admin" -X POST "$CONVOFAKE_ADMIN_URL/clock" -d '{"advance":"3h"}'
//	$ curl -s -H "$admin" -X POST "$CONVOFAKE_ADMIN_URL/faults" \
//	    -d '{"method":"GET","path":"/channels","status":429,"retry_after":"30s","times":1}'
//	$ curl -si -H "$auth" "$CONVO_BASE_URL/channels"      # 429, Retry-After: 30
//	$ curl -s -H "$admin" "$CONVOFAKE_ADMIN_URL/requests?path=/channels"  # keys shown as [REDACTED]
//
// # The admin API
//
// Under /_fake/ (not under /v1), on --addr when it is loopback, else on
// --admin-addr; JSON in and out, every call with
// "Authorization: Bearer <admin token>" (else 401). Errors have the shape
// {"error": "<code>", "message": "<text>"}.
//
//	GET    /_fake/                        company id, clock, list of endpoints
//	POST   /_fake/reset                   back to the start state (start seed, start clock,
//	                                      no faults, empty journal); body {"empty": true}: no data
//	POST   /_fake/seed                    body: a seed document; replaces the data (a seed with
//	                                      "now" needs a frozen clock: 400 invalid_seed otherwise);
//	                                      "api_key_changed": true and a "notice" when the seed's
//	                                      companies[0].api_key replaced the key clients use
//	GET    /_fake/clock                   {"now": "...", "frozen": true}
//	POST   /_fake/clock                   {"advance": "90m"} or {"set": "2026-11-22T10:00:00Z"};
//	                                      409 clock_not_frozen on a real clock
//	GET    /_fake/faults                  the installed rules, with id and remaining uses
//	POST   /_fake/faults                  a fault rule; 201 {"id": 1}
//	DELETE /_fake/faults                  remove every fault rule
//	DELETE /_fake/faults/{id}             remove one; 404 not_found when there is no such rule
//	GET    /_fake/requests                the journal (?method=, ?path= pattern over the path
//	                                      relative to the base URL, e.g. /channels); API keys and
//	                                      key-like headers, query parameters and JSON fields redacted
//	DELETE /_fake/requests                empty the journal
//	GET    /_fake/companies               every company (id, default, contacts)
//	GET    /_fake/state/contacts          the default company's contacts (?phone=, &account=;
//	                                      ?company=<id> for another company)
//	GET    /_fake/state/contacts/{id}     one contact
//	GET    /_fake/state/conversations/{id} one conversation
//	GET    /_fake/state/messages/{id}     one message (media_id of a seeded media message)
//
// A fault rule: {"method": "GET", "path": "/conversations/*/messages",
// "status": 503, "code": "SERVICE_UNAVAILABLE", "message": "...",
// "details": {...}, "retry_after": "30s", "latency": "2s", "drop": false,
// "times": 1}; every field is optional, but a rule needs a status, a latency
// or drop. path is a path.Match pattern relative to the base URL; durations
// are Go duration strings or numbers of seconds; times 0 means always.
package main
