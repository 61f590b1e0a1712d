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
// Every request is logged on stderr, one line each (method, path, status,
// duration; --log-format text or json). API keys, the admin token, query
// strings and bodies are never logged.
//
// Flags:
//
//	--addr host:port        listen address (default 127.0.0.1:8080). A
//	                        non-loopback address is refused unless
//	                        --admin-on-public is given.
//	--seed FILE             load FILE (the fake's JSON seed format, see
//	                        fake/SEED.md) instead of the demo data. A bad
//	                        file stops the start with exit code 2, naming
//	                        the file, the JSON path and the reason.
//	--api-key KEY           API key of the first (demo) company (default
//	                        fake-api-key); overrides the seed's api_key.
//	--clock real|frozen|frozen:<RFC 3339>
//	                        the server's clock. When given, it overrides the
//	                        seed's "now"; without it, a seed with "now" runs
//	                        frozen there, any other seed on the real clock.
//	--rate-limit N          requests per second per API key (0: no limit).
//	--rate-burst N          bucket size of the rate limit (default: N rounded up).
//	--anomaly-cache D       anomaly report cache per company and bucket
//	                        (default 5m; 0 disables it).
//	--log-format text|json  request log format.
//	--admin-token T         admin token (default: random, printed at start).
//	--admin-on-public       allow a non-loopback --addr (the admin API is
//	                        then reachable from the network).
//	--public-url URL        base of the temporary attachment URLs (default:
//	                        the listening address).
//
// SIGINT or SIGTERM shut the server down gracefully (exit code 0).
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
//	$ curl -s -H "$admin" "$CONVOFAKE_ADMIN_URL/requests"  # keys shown as [REDACTED]
//
// # The admin API
//
// Under /_fake/ (not under /v1), JSON in and out, every call with
// "Authorization: Bearer <admin token>" (else 401). Errors have the shape
// {"error": "<code>", "message": "<text>"}.
//
//	GET    /_fake/                        company id, clock, list of endpoints
//	POST   /_fake/reset                   back to the start state (start seed, start clock,
//	                                      no faults, empty journal); body {"empty": true}: no data
//	POST   /_fake/seed                    body: a seed document; replaces the data (a seed with
//	                                      "now" needs a frozen clock: 400 invalid_seed otherwise)
//	GET    /_fake/clock                   {"now": "...", "frozen": true}
//	POST   /_fake/clock                   {"advance": "90m"} or {"set": "2026-11-22T10:00:00Z"};
//	                                      409 clock_not_frozen on a real clock
//	GET    /_fake/faults                  the installed rules, with id and remaining uses
//	POST   /_fake/faults                  a fault rule; 201 {"id": 1}
//	DELETE /_fake/faults                  remove every fault rule
//	DELETE /_fake/faults/{id}             remove one; 404 not_found when there is no such rule
//	GET    /_fake/requests                the journal (?method=, ?path= pattern), keys redacted
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
