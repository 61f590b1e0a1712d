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
//	# data: the demo data
//
// Install it with go install github.com/convoapi/convo-go/cmd/convofake@latest,
// or pin it in a module with go get -tool (Go 1.24+) and run go tool convofake.
//
// Every request is logged on stderr, one line each (method, path, status,
// duration; --log-format text or json). API keys, the admin token, query
// strings and bodies are never logged.
//
// Flags: convofake -h prints them with their defaults; cmd/convofake/README.md
// has them in a table, with how --api-key and --clock win over a seed file.
//
// Exit codes: 0 after SIGINT or SIGTERM (a graceful shutdown), -h or
// --version; 1 when the server stops on an error after it started; 2 when
// it cannot start (a bad flag, a bad seed file, a --state file another
// process holds or that could not be written, an address it cannot listen
// on), with what to try (a port in use: --addr 127.0.0.1:0); 3 after SIGINT
// or SIGTERM when requests still running after --shutdown-grace had to be
// cut.
//
// On loopback (the default) both listeners answer only a Host that names
// this server (a loopback name, the listening host, --public-url), so that
// a page in the browser cannot reach the data through DNS rebinding.
//
// A client that sends a request slowly is dropped after --read-timeout
// (30 s); at most --max-conns (512) connections are served at once on each
// listener. The API key and the admin token can come from a file
// (--api-key-file, --admin-token-file) or the environment
// (CONVOFAKE_API_KEY, CONVOFAKE_ADMIN_TOKEN) rather than a flag, which the
// process list shows.
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
// {"error": "<code>", "message": "<text>"}. GET /_fake/ lists the calls:
// reset, seed, clock, fault rules, the request journal, the state of
// contacts, conversations and messages, the state as a seed document
// (GET /_fake/seed; --state FILE keeps it across restarts), and companies
// of their own for test jobs sharing one server (POST /_fake/companies,
// which loads the same fixture, ids included, in every company; ?company=
// reads, resets and clears one); cmd/convofake/README.md describes each.
// Its reads and the page of /_fake/ui/ read the fake's store, never its
// API: looking changes nothing a client's next call answers. Fault rules and journal filters take the fake's path patterns
// (docs/behaviour.md, "Path patterns"): relative to the base URL, a leading
// /v1 or /api/v1 meaning the same as without it.
package main
