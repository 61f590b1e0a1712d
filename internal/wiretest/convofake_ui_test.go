package wiretest

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go"
)

// The browser tests of convofake's page (cmd/convofake/ui): headless
// Chromium, driven with chromedp, on a convofake process.

// uiClock is the frozen clock of the page's tests.
const uiClock = "frozen:2026-11-22T10:00:00Z"

// uiReadme, when set (with CONVOFAKE_UI_SCREENSHOT=<file>), is where TestUI writes the README's screenshot
// (cmd/convofake/screenshot.png); the tests never write into the tree
// otherwise.
var uiReadme = fromRoot(os.Getenv("CONVOFAKE_UI_SCREENSHOT"))

// fromRoot resolves a path given relative to the repository's root, as the
// README writes them; "" stays "".
func fromRoot(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(coreDir, p)
}

// findBrowser returns the path of a Chromium, or "" when there is none.
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// page is a headless Chromium tab on a running convofake, recording the
// address of every request the page makes.
type page struct {
	t    *testing.T
	ctx  context.Context
	p    *proc
	mu   sync.Mutex
	urls []string
	shot string // directory of the screenshots
}

func newPage(t *testing.T, p *proc, width, height int) *page {
	t.Helper()
	bin := findBrowser()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install -y chromium): the page's browser tests need one")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height),
	}
	pg := &page{t: t, p: p, shot: t.TempDir()}
	if dir := fromRoot(os.Getenv("CONVOFAKE_UI_SHOTS")); dir != "" { // keep them after the test
		pg.shot = dir
	}
	// A browser that fails to start (a busy machine: several test
	// binaries start one at once) is started again, twice at most.
	for attempt := 1; ; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
			if e, ok := ev.(*network.EventRequestWillBeSent); ok { // chromedp enables the network domain
				pg.mu.Lock()
				pg.urls = append(pg.urls, e.Request.URL)
				pg.mu.Unlock()
			}
		}))
		ctx, cancelTime := context.WithTimeout(ctx, 2*safetyTimeout)
		err := chromedp.Do(ctx) // starts the browser and opens the tab
		if err == nil || attempt == 3 {
			t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
			require.NoError(t, err, "Chromium did not start")
			pg.ctx = ctx
			return pg
		}
		t.Logf("Chromium did not start (attempt %d): %v", attempt, err)
		cancelTime()
		cancelTab()
		cancelAlloc()
	}
}

// run runs actions, failing the test on an error.
func (pg *page) run(actions ...chromedp.Action[chromedp.Void]) {
	pg.t.Helper()
	require.NoError(pg.t, chromedp.Do(pg.ctx, actions...))
}

// eval evaluates a JavaScript expression.
func eval[T any](pg *page, expr string) T {
	pg.t.Helper()
	v, err := chromedp.Run(pg.ctx, chromedp.Evaluate[T](expr))
	require.NoError(pg.t, err, expr)
	return v
}

// open opens the page at fragment (#token=... or a view).
func (pg *page) open(fragment string) {
	pg.t.Helper()
	pg.run(chromedp.Navigate(pg.p.base + uiPrefix + fragment))
}

// view shows a view by its fragment and waits for its heading.
func (pg *page) view(fragment, ready string) {
	pg.t.Helper()
	eval[string](pg, `location.hash = `+jsString(fragment))
	pg.run(chromedp.WaitVisible(chromedp.CSS(ready)))
}

// within waits until the JavaScript expression is true, for at most d.
func (pg *page) within(d time.Duration, expr string) error {
	_, err := chromedp.Run(pg.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(d)))
	return err
}

func (pg *page) text(sel string) string {
	pg.t.Helper()
	s, err := chromedp.Run(pg.ctx, chromedp.TextContent(chromedp.CSS(sel)))
	require.NoError(pg.t, err, sel)
	return s
}

// screenshot saves the viewport as name.png in the test's temp dir (in
// $CONVOFAKE_UI_SHOTS when set, to keep them; a relative path is from the
// repository's root).
func (pg *page) screenshot(name string) []byte {
	pg.t.Helper()
	png, err := chromedp.Run(pg.ctx, chromedp.CaptureScreenshot())
	require.NoError(pg.t, err)
	require.NoError(pg.t, os.WriteFile(filepath.Join(pg.shot, name+".png"), png, 0o600))
	return png
}

// foreign returns the requests of the page to any host but convofake's.
func (pg *page) foreign() []string {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	var out []string
	for _, u := range pg.urls {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "data" && pu.Scheme != "blob" && pu.Host != pg.p.addr) {
			out = append(out, u)
		}
	}
	return out
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// uiClient is an SDK client of the test's convofake that does not retry.
func uiClient(t *testing.T, p *proc) *convo.Client {
	c, err := convo.NewClient(convo.WithBaseURL(p.base+"/v1"), convo.WithAPIKey(p.printed()["CONVO_API_KEY"]), convo.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

// TestUI drives the page in Chromium through the views, in order: each
// step starts from the state the previous one left.
func TestUI(t *testing.T) {
	p := start(t, "--clock", uiClock)
	pg := newPage(t, p, 1280, 800)
	ctx := context.Background()
	sdk := uiClient(t, p)

	pg.open("#token=" + testAdminToken)
	pg.run(chromedp.WaitVisible(chromedp.CSS(`body[data-view="inbox"] #inbox`)))
	hash := eval[string](pg, `location.hash`)
	assert.Equal(t, "#inbox", hash, "the token leaves the address bar; the page opens on the conversations")
	pg.view("companies", `body[data-view="companies"] #view table`)
	assert.Contains(t, pg.text("#view"), "Acme Support", "a channel account of the demo data")
	assert.Contains(t, pg.text("#view"), "(masked)")
	assert.NotContains(t, pg.text("#view"), fakeAPIKey(p), "keys are masked")
	pg.screenshot("companies")

	t.Run("a seeded conversation's messages", func(t *testing.T) {
		id := conversationOf(t, p, "Ana Souza")
		pg.view("inbox", `#inbox tbody tr`)
		if png := pg.screenshot("conversations"); uiReadme != "" {
			require.NoError(t, os.WriteFile(uiReadme, png, 0o644))
		}
		pg.run(chromedp.Click(chromedp.CSS(`#inbox a[href^="#thread/`+id+`?company="]`)), chromedp.WaitVisible(chromedp.CSS(`#thread li`)))
		thread := pg.text("#thread")
		assert.Contains(t, thread, "Hi! My order #4521 hasn't arrived yet.")
		assert.Contains(t, thread, "Outbound from agent")
		assert.Contains(t, thread, "Reactions: ")
		assert.Contains(t, thread, "File: voice-note.ogg (audio/ogg", "other media by name")
		require.NoError(t, pg.within(safetyTimeout, `document.querySelectorAll("#thread img").length > 0`), "an image is shown, from a blob")
		assert.True(t, eval[bool](pg, `[...document.querySelectorAll("#thread img")].every(i => i.src.startsWith("blob:"))`))
		pg.screenshot("thread")
	})

	t.Run("an SDK call appears in the journal within 2 s", func(t *testing.T) {
		pg.view("journal", `#journal`)
		_, err := sdk.Channels.List(ctx)
		require.NoError(t, err)
		require.NoError(t, pg.within(2*time.Second, `[...document.querySelectorAll("#journal summary")].some(s => s.textContent.includes("/v1/channels") && s.textContent.includes("200"))`))
		pg.run(chromedp.Click(chromedp.CSS(`#journal summary`)))
		assert.Contains(t, pg.text("#journal details[open]"), "[REDACTED]", "the row opens its headers, redacted")
		pg.screenshot("journal")
	})

	t.Run("a fault added through the form fails the next SDK call", func(t *testing.T) {
		pg.view("faults", `#faultform`)
		pg.run(
			chromedp.SetValue(chromedp.CSS(`#faultform [name=path]`), "/channels"),
			chromedp.SetValue(chromedp.CSS(`#faultform [name=status]`), "503"),
			chromedp.SetValue(chromedp.CSS(`#faultform [name=code]`), "SERVICE_UNAVAILABLE"),
			chromedp.SetValue(chromedp.CSS(`#faultform [name=times]`), "1"),
			chromedp.Click(chromedp.CSS(`#faultform button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#faults tbody tr`)),
		)
		pg.screenshot("faults")
		_, err := sdk.Channels.List(ctx)
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
		assert.Equal(t, convo.ErrorCode("SERVICE_UNAVAILABLE"), apiErr.Code)
	})

	t.Run("advancing the clock puts a conversation in the unanswered bucket", func(t *testing.T) {
		id := conversationOf(t, p, "Emma Clarke")
		row := `#inbox tr[data-id="` + id + `"]`
		pg.view("inbox", row)
		assert.NotContains(t, pg.text(row), "unanswered", "waiting under the threshold")
		pg.view("clock", `#advanceform`)
		pg.run(chromedp.SetValue(chromedp.CSS(`#advance`), "4h"), chromedp.Click(chromedp.CSS(`#advanceform button[type=submit]`)))
		require.NoError(t, pg.within(safetyTimeout, `document.querySelector("#clockreading").textContent.includes("2026-11-22 14:00:00Z")`))
		pg.screenshot("clock")
		pg.view("inbox?bucket=unanswered", row+` .mark[data-bucket="unanswered"]`)
		assert.Contains(t, pg.text(row), "⚠ unanswered", "marked in words, not by colour alone")
	})

	t.Run("seed and reset", func(t *testing.T) {
		pg.view("state", `#export`)
		pg.screenshot("seed-and-reset")
	})

	t.Run("keyboard: Tab reaches the skip link, then the views", func(t *testing.T) {
		pg.open("#companies") // the token stays in the tab's sessionStorage
		pg.run(chromedp.WaitVisible(chromedp.CSS(`body[data-view="companies"] #view h2`)), chromedp.KeyEvent("\t"))
		assert.Equal(t, "Skip to the content", eval[string](pg, `document.activeElement.textContent`))
		pg.run(chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"))
		assert.Equal(t, "Conversations", eval[string](pg, `document.activeElement.textContent`))
		pg.run(chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`body[data-view="inbox"] #inbox`)))
	})

	assert.Empty(t, pg.foreign(), "the page asks no other host")
}

// TestUIViewsChangeNothing opens every view of the page, a thread and its
// image included, then checks each thing a look must not change: the
// journal, the rate-limit budget, the anomaly answer and the clock.
func TestUIViewsChangeNothing(t *testing.T) {
	p := start(t, "--clock", uiClock, "--rate-limit", "0.001", "--rate-burst", "3", "--anomaly-cache", "24h")
	clock := p.admin(http.MethodGet, "/_fake/clock", "").JSON(t)
	pg := newPage(t, p, 1280, 800)
	pg.open("#token=" + testAdminToken)
	pg.run(chromedp.WaitVisible(chromedp.CSS(`body[data-view="inbox"] #inbox`)))
	id := conversationOf(t, p, "Ana Souza")
	company := p.admin(http.MethodGet, "/_fake/", "").JSON(t)["company_id"].(string)
	pg.view("inbox", `#inbox tbody tr`)
	pg.view("thread/"+id+"?company="+company, `#thread li`)
	require.NoError(t, pg.within(safetyTimeout, `document.querySelectorAll("#thread img").length > 0`))
	pg.view("inbox?bucket=unanswered", `body[data-view="inbox"] #inbox`)
	for _, v := range []struct{ fragment, ready string }{
		{"journal", "#journal"}, {"faults", "#faultform"}, {"clock", "#advanceform"}, {"state", "#export"}, {"companies", "#view table"},
	} {
		pg.view(v.fragment, v.ready)
	}

	t.Run("the journal", func(t *testing.T) {
		assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests", "").JSON(t)["count"])
	})
	t.Run("the clock", func(t *testing.T) {
		assert.Equal(t, clock, p.admin(http.MethodGet, "/_fake/clock", "").JSON(t))
	})
	t.Run("the anomaly answer", func(t *testing.T) {
		// Four hours later Emma Clarke waits too. Had a view filled the
		// report's cache (24 h here), the API would still answer the count
		// of the moment the page was opened.
		require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance": "4h"}`).Status)
		want := len(inboxItems(t, p, "?bucket=unanswered"))
		assert.EqualValues(t, want, anomalyCount(t, p, fakeAPIKey(p)), "the count of now (the first token of 3)")
	})
	t.Run("the rate-limit budget", func(t *testing.T) {
		assert.Equal(t, http.StatusOK, p.api("/v1/channels", fakeAPIKey(p)).Status, "the second token of 3")
		assert.Equal(t, http.StatusOK, p.api("/v1/channels", fakeAPIKey(p)).Status, "the third token of 3")
		assert.Equal(t, http.StatusTooManyRequests, p.api("/v1/channels", fakeAPIKey(p)).Status, "the budget was whole: the page took none")
	})
}

// TestUIAddressOpensAView: a view given after the token opens at once and
// stays in the address bar; the token does not.
func TestUIAddressOpensAView(t *testing.T) {
	p := start(t, "--clock", uiClock)
	id := conversationOf(t, p, "Ana Souza")
	company := p.admin(http.MethodGet, "/_fake/", "").JSON(t)["company_id"].(string)
	for _, tc := range []struct{ view, ready string }{
		{"journal", `body[data-view="journal"] #journal`},
		{"inbox?bucket=unanswered", `body[data-view="inbox"] #inbox`},
		{"thread/" + id + "?company=" + company, `body[data-view="thread"] #thread li`},
	} {
		t.Run(tc.view, func(t *testing.T) {
			pg := newPage(t, p, 1280, 800)
			pg.open("#token=" + testAdminToken + "&" + tc.view)
			pg.run(chromedp.WaitVisible(chromedp.CSS(tc.ready)))
			assert.Equal(t, "#"+tc.view, eval[string](pg, `location.hash`))
		})
	}
}

// TestUIShowsInvisibleCharacters: a right-to-left override in a filename,
// and zero-width characters in a name and a text, are shown as marked code
// points, never obeyed; an emoji's joiner is kept.
func TestUIShowsInvisibleCharacters(t *testing.T) {
	p := start(t, "--clock", uiClock)
	r := p.admin(http.MethodPost, "/_fake/companies", `{"channels": [{"ref": "a", "channel": "chatapp"}],
		"contacts": [{"ref": "c", "channel": "a", "phone": "5511988887777", "name": "Ana\u200bSouza"}],
		"conversations": [{"id": "d0000000-0000-4000-8000-0000000000dd", "contact": "c", "messages": [
			{"text": "pay\u202eyalp now 👨\u200d👩\u200d👧", "ago": "2h"},
			{"type": "document", "ago": "1h", "media": {"mime_type": "application/octet-stream", "filename": "photo\u202egnp.exe", "content": "MZ"}}]}]}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	company := r.JSON(t)["id"].(string)
	pg := newPage(t, p, 1280, 800)
	pg.open("#token=" + testAdminToken + "&thread/d0000000-0000-4000-8000-0000000000dd?company=" + company)
	pg.run(chromedp.WaitVisible(chromedp.CSS(`#thread li`)))
	thread := pg.text("#thread")
	assert.Contains(t, thread, "photoU+202Egnp.exe", "the override is shown where it stands")
	assert.NotContains(t, thread, "\u202e", "and not obeyed")
	assert.Contains(t, thread, "payU+202Eyalp now")
	assert.Contains(t, thread, "👨\u200d👩\u200d👧", "an emoji's joiners are kept")
	assert.Equal(t, 2, eval[int](pg, `document.querySelectorAll("#thread .ctl").length`))
	assert.Contains(t, pg.text("#view h2"), "AnaU+200BSouza")
	pg.screenshot("invisible-characters")

	pg.view("inbox?company="+company, `body[data-view="inbox"] #inbox tbody tr`)
	assert.Contains(t, pg.text("#inbox"), "AnaU+200BSouza")
	assert.NotContains(t, pg.text("#inbox"), "\u200b")
}

// TestUINarrow: on a narrow window nothing scrolls sideways.
func TestUINarrow(t *testing.T) {
	p := start(t, "--clock", uiClock)
	pg := newPage(t, p, 1280, 800)
	pg.run(chromedp.EmulateViewport(390, 800)) // a window is never narrower than 500 px
	pg.open("#token=" + testAdminToken)
	pg.run(chromedp.WaitVisible(chromedp.CSS(`#view h2`)))
	for _, v := range []struct{ fragment, ready string }{
		{"companies", "#view table"}, {"inbox", "#inbox tbody tr"}, {"journal", "#journal"}, {"faults", "#faultform"}, {"clock", "#advanceform"},
	} {
		pg.view(v.fragment, v.ready)
		wide := eval[bool](pg, `document.documentElement.scrollWidth > window.innerWidth`)
		assert.False(t, wide, "%s scrolls sideways at 390 px", v.fragment)
		pg.screenshot("narrow-" + v.fragment)
	}
}

// TestUIToken: without the token, or with a wrong one, the page says so
// and shows no data.
func TestUIToken(t *testing.T) {
	p := start(t, "--clock", uiClock)
	for _, tc := range []struct {
		name, fragment, want string
	}{
		{"missing", "", "No admin token"},
		{"wrong", "#token=not-the-token", "The admin token is wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := newPage(t, p, 1280, 800)
			pg.open(tc.fragment)
			pg.run(chromedp.WaitVisible(chromedp.CSS(`#alert .err`)))
			assert.Contains(t, pg.text("#alert"), tc.want)
			shown := eval[string](pg, `document.querySelector("#view").textContent + document.querySelector("#clockline").textContent`)
			assert.Empty(t, shown, "no data")
			pg.screenshot("token-" + tc.name)
			assert.Empty(t, pg.foreign())
		})
	}
}
