// Package wiretest holds the tests that need the OpenAPI validator
// (kin-openapi) or a browser (chromedp), in a module of their own so that
// the core module github.com/convoapi/convo-go, which users require, does
// not require them: they stay out of every user's module graph and go.sum.
//
// Its tests validate the exchanges the core's tests record (package
// wirerecord, TestRecordedExchanges), compare api/openapi.yaml with the SDK's
// types and the fake's routes (the drift tests), route convofake's answers
// through the published document, and drive convofake's page in Chromium.
// The module is never published; it builds against the core in this
// repository (a replace directive, which only its own builds obey).
package wiretest
