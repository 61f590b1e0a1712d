package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
)

// demoServer starts a fake with the demo data on a frozen clock.
func demoServer() *fake.Server {
	return fake.NewServer(fake.WithSeed(fake.DemoSeed()), fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))))
}

func ExampleRun() {
	s := demoServer()
	defer s.Close()
	// Against the real service: its base URL and your key, and no Pace
	// (the default paces the run).
	rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	if err != nil {
		fmt.Println("cannot run:", err)
		return
	}
	fmt.Println(rep.Failed, "failed;", rep.BadKeyRequests, "requests with a bad key;", rep.AnomalyRequests, "anomaly report;", rep.WriteRequests, "writes")
	// Output: 0 failed; 3 requests with a bad key; 1 anomaly report; 0 writes
}

func ExampleRunTest() {
	// In a test of your own, each check becomes a subtest:
	//
	//	func TestOurServerConforms(t *testing.T) {
	//		conformance.RunTest(t, conformance.Config{BaseURL: url, APIKey: key, Anomalies: true})
	//	}
	var _ func(*testing.T, conformance.Config) *conformance.Report = conformance.RunTest
}

func ExampleReport_OK() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1, Anomalies: true})
	fmt.Println(rep.OK(), rep.ExitCode())
	// Output: true 0
}

func ExampleReport_ExitCode() {
	s := demoServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/convocheck-no-such-path", Status: http.StatusOK}) // an unknown path that answers 200
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	fmt.Println(rep.ExitCode())
	// Output: 1
}

func ExampleReport_Result() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	res, _ := rep.Result("anomalies/unknown-bucket")
	fmt.Println(res.Status, "-", res.Reason)
	// Output: skip - the run asks for one anomaly report (the service intends about one pass a day); --anomalies runs this check
}

func ExampleReport_WriteText() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	var out strings.Builder
	_ = rep.WriteText(&out)
	fmt.Println(strings.SplitN(out.String(), "\n", 2)[0])
	// Output: pass  spec      auth/key-forms                               the three key forms (Bearer, ApiKey, x-api-key) are accepted and answer alike
}

func ExampleReport_Summary() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	fmt.Println(strings.SplitN(rep.Summary(), ";", 2)[0])
	// Output: 85 checks: 60 passed, 0 failed, 25 skipped
}

func ExampleReport_WriteJSON() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	var buf bytes.Buffer
	_ = rep.WriteJSON(&buf)
	var back struct {
		Mode   string `json:"mode"`
		Failed int    `json:"failed"`
	}
	_ = json.Unmarshal(buf.Bytes(), &back)
	fmt.Println(back.Mode, back.Failed)
	// Output: read-only 0
}

// recordDemo records a few reads of s.
func recordDemo(s *fake.Server, opts conformance.RecorderOptions) []byte {
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, opts)
	c := s.Client(convo.WithMiddleware(rec.Middleware))
	_, _ = c.Channels.List(context.Background())
	_, _ = c.Conversations.List(context.Background(), &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 100})
	return buf.Bytes()
}

func ExampleNewRecorder() {
	s := demoServer()
	defer s.Close()
	f, err := os.CreateTemp("", "recording-*.jsonl")
	if err != nil {
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	rec := conformance.NewRecorder(f, conformance.RecorderOptions{Pseudonymise: true, Salt: "a secret of yours"})
	client := s.Client(convo.WithMiddleware(rec.Middleware))
	accounts, _ := client.Channels.List(context.Background())
	fmt.Println(len(accounts), rec.Err())
	// Output: 3 <nil>
}

func ExampleRecorder_Middleware() {
	s := demoServer()
	defer s.Close()
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
	client := s.Client(convo.WithMiddleware(rec.Middleware))
	_, _ = client.Channels.List(context.Background())
	entries, _ := conformance.ReadRecording(&buf)
	fmt.Println(entries[0].Method, entries[0].Path, entries[0].Status, entries[0].Auth)
	// Output: GET /channels 200 Bearer
}

func ExampleRecorder_Transport() {
	s := demoServer()
	defer s.Close()
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
	// As a transport it also records the downloads of files, by size and
	// SHA-256.
	client := s.Client(convo.WithHTTPClient(&http.Client{Transport: rec.Transport(nil)}))
	_, _ = client.Channels.List(context.Background())
	fmt.Println(strings.Count(buf.String(), "\n"), "lines")
	// Output: 2 lines
}

func ExampleRecorder_Err() {
	rec := conformance.NewRecorder(failingWriter{}, conformance.RecorderOptions{})
	s := demoServer()
	defer s.Close()
	_, _ = s.Client(convo.WithMiddleware(rec.Middleware)).Channels.List(context.Background())
	fmt.Println(rec.Err())
	// Output: disk full
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func ExampleReadRecording() {
	s := demoServer()
	defer s.Close()
	entries, err := conformance.ReadRecording(bytes.NewReader(recordDemo(s, conformance.RecorderOptions{})))
	fmt.Println(len(entries), err)
	// Output: 2 <nil>
}

func ExampleReplay() {
	s := demoServer()
	defer s.Close()
	recording := recordDemo(s, conformance.RecorderOptions{})
	rep, err := conformance.Replay(context.Background(), bytes.NewReader(recording), conformance.ReplayConfig{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	fmt.Println(len(rep.Differences), err)
	// Output: 0 <nil>
}

func ExampleReplayReport_WriteText() {
	s := demoServer()
	defer s.Close()
	recording := bytes.Replace(recordDemo(s, conformance.RecorderOptions{}), []byte(`"display_name":"Acme Sales"`), []byte(`"display_name":"Sales"`), 1)
	rep, _ := conformance.Replay(context.Background(), bytes.NewReader(recording), conformance.ReplayConfig{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	_ = rep.WriteText(os.Stdout)
	// Output:
	// line 2: GET /channels: body.data.items[1].display_name: recorded "Sales", replayed "Acme Sales"
	// 2 exchanges replayed (2 requests): 1 differences
}

func ExampleReplayReport_WriteJSON() {
	s := demoServer()
	defer s.Close()
	rep, _ := conformance.Replay(context.Background(), bytes.NewReader(recordDemo(s, conformance.RecorderOptions{})), conformance.ReplayConfig{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	var buf bytes.Buffer
	_ = rep.WriteJSON(&buf)
	fmt.Println(strings.Contains(buf.String(), `"differences": null`))
	// Output: true
}

func ExampleSeedFromRecording() {
	s := demoServer()
	defer s.Close()
	seed, _, err := conformance.SeedFromRecording(bytes.NewReader(recordDemo(s, conformance.RecorderOptions{})))
	if err != nil {
		return
	}
	replica := fake.NewServer(fake.WithSeed(seed))
	defer replica.Close()
	fmt.Println(len(seed.Companies[0].Conversations), "conversations, frozen at", seed.Now.Format(time.RFC3339))
	// Output: 11 conversations, frozen at 2026-11-26T12:00:00Z
}

func ExampleWriteSeed() {
	s := demoServer()
	defer s.Close()
	seed, _, _ := conformance.SeedFromRecording(bytes.NewReader(recordDemo(s, conformance.RecorderOptions{})))
	var buf bytes.Buffer
	_ = conformance.WriteSeed(&buf, seed) // for cmd/convofake --seed
	back, err := fake.LoadSeed(&buf)
	fmt.Println(len(back.Companies[0].Channels), err)
	// Output: 4 <nil>
}

// A replay against a convofake started from the recording's seed moves its
// clock to each exchange's recorded time through its admin API, with the
// address and token convofake printed at start.
func ExampleConvofakeClock() {
	setClock, err := conformance.ConvofakeClock(os.Getenv("CONVOFAKE_ADMIN_URL"), os.Getenv("CONVOFAKE_ADMIN_TOKEN"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open("recording.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rep, err := conformance.Replay(context.Background(), f, conformance.ReplayConfig{
		BaseURL: os.Getenv("CONVO_BASE_URL"), APIKey: os.Getenv("CONVO_API_KEY"), SetClock: setClock})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = rep.WriteText(os.Stdout)
}

// With a convofake's admin API the run reads back the custom fields it
// writes, which the API does not show, and checks that they are merged.
func ExampleConvofakeCustomFields() {
	fields, err := conformance.ConvofakeCustomFields(os.Getenv("CONVOFAKE_ADMIN_URL"), os.Getenv("CONVOFAKE_ADMIN_TOKEN"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{
		BaseURL: os.Getenv("CONVO_BASE_URL"), APIKey: os.Getenv("CONVO_API_KEY"), CustomFields: fields,
		Write: &conformance.WriteTargets{PhoneNumberID: "5511940000001", PhoneNumber: "5511900001111"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := rep.Result("write/custom-fields-merged")
	fmt.Println(res.Status)
}
