package wiretest

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// The drift tests keep api/openapi.yaml, the SDK and the fake in step: an
// endpoint, parameter, field or error code that one of them has and the
// document lacks (or the other way round) fails here, naming it. They read
// the SDK's exported types by reflection, and its source (coreDir) for the
// unexported ones and for what reflection cannot list.

func TestOpenAPIDriftEndpoints(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	documented := oascheck.Operations(doc)

	sdk, err := oascheck.SourceCalls(coreDir, "call")
	require.NoError(t, err)
	assert.Equal(t, documented, sdk, "endpoints the SDK calls vs the document's operations (METHOD /path)")

	var docPaths, tops []string
	seenTop := map[string]bool{}
	for _, op := range documented {
		_, p, _ := strings.Cut(op, " ")
		docPaths = appendNew(docPaths, p)
		top := strings.Split(p, "/")[1]
		if !seenTop[top] {
			seenTop[top] = true
			tops = append(tops, top)
		}
	}
	sort.Strings(docPaths)
	fakePaths, err := oascheck.SourcePaths(fakeDir, tops)
	require.NoError(t, err)
	assert.Equal(t, docPaths, fakePaths, "routes the fake declares vs the document's paths")
}

// appendNew appends s to list unless list holds it already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func TestOpenAPIDriftParameters(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	cases := []struct {
		operation string
		params    any
	}{
		{"listConversations", convo.ListConversationsParams{}},
		{"listMessages", convo.ListMessagesParams{}},
		{"getAnomalies", convo.AnomaliesParams{}},
		{"lookupContact", convo.LookupContactParams{}},
	}
	for _, tc := range cases {
		t.Run(tc.operation, func(t *testing.T) {
			require.NotNil(t, oascheck.Operation(doc, tc.operation))
			assert.Equal(t, oascheck.QueryParams(doc, tc.operation), oascheck.URLNames(reflect.TypeOf(tc.params)),
				"query parameters of %s in the document vs the url tags of %T", tc.operation, tc.params)
		})
	}
}

// TestOpenAPIDriftFakeParameters compares the query parameter names the
// fake's handlers read with the document's, as one set.
func TestOpenAPIDriftFakeParameters(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			require.NotEmpty(t, op.OperationID, "%s %s", method, path)
			for _, name := range oascheck.QueryParams(doc, op.OperationID) {
				documented = appendNew(documented, name)
			}
		}
	}
	sort.Strings(documented)
	fakeNames, err := oascheck.SourceQueryNames(fakeDir, "q")
	require.NoError(t, err)
	assert.Equal(t, documented, fakeNames, "query parameters the fake reads vs the document's")
}

func TestOpenAPIDriftFields(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	cases := []struct {
		schema string
		value  any    // an exported type, read by reflection
		source string // or an unexported one, read from the source
	}{
		{"ChannelAccount", convo.ChannelAccount{}, ""},
		{"Capabilities", convo.Capabilities{}, ""},
		{"ConversationPage", convo.Page[convo.Conversation]{}, ""},
		{"Conversation", convo.Conversation{}, ""},
		{"MessagePage", convo.MessagePage{}, ""},
		{"Message", convo.Message{}, ""},
		{"Media", convo.Media{}, ""},
		{"Reaction", convo.Reaction{}, ""},
		{"Window", convo.Window{}, ""},
		{"AnomalyReport", convo.AnomalyReport{}, ""},
		{"AnomalyReport.window", convo.AnomalyWindow{}, ""},
		{"AnomalyReport.buckets", convo.AnomalyBuckets{}, ""},
		{"AnomalyBucket", convo.AnomalyBucket{}, ""},
		{"BucketCount", convo.BucketCount{}, ""},
		{"AnomalyItem", convo.AnomalyItem{}, ""},
		{"Attachment", convo.Attachment{}, ""},
		{"Contact", convo.Contact{}, ""},
		{"Confirmation", convo.Confirmation{}, ""},
		{"CancelResult", convo.CancelResult{}, ""},
		{"InvalidBucketDetails", convo.InvalidBucketDetails{}, ""},
		{"ErrorEnvelope", nil, "errorBody"},
		{"ErrorMessage", nil, "errorBody.message"},
		{"CreateContactRequest", convo.CreateContactParams{}, ""},
		{"UpdateCustomFieldsRequest", convo.UpdateCustomFieldsParams{}, ""},
		{"RemoveTagsRequest", nil, "removeTagsBody"},
		{"CancelSequenceRequest", convo.CancelSequenceParams{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.schema, func(t *testing.T) {
			s, err := oascheck.Schema(doc, tc.schema)
			require.NoError(t, err)
			if tc.source != "" {
				names, err := oascheck.SourceJSONNames(coreDir, tc.source)
				require.NoError(t, err)
				assert.Equal(t, oascheck.PropertyNames(s), names, "fields of %s in the document vs the json tags of %s", tc.schema, tc.source)
				return
			}
			assert.Equal(t, oascheck.PropertyNames(s), oascheck.JSONNames(reflect.TypeOf(tc.value)),
				"fields of %s in the document vs the json tags of %T", tc.schema, tc.value)
			if name := reflect.TypeOf(tc.value).Name(); !strings.Contains(name, "[") { // not a generic type's instance
				names, err := oascheck.SourceJSONNames(coreDir, name)
				require.NoError(t, err)
				assert.Equal(t, oascheck.JSONNames(reflect.TypeOf(tc.value)), names, "the source reading of %s agrees with reflection", name)
			}
		})
	}
}

func TestOpenAPIDriftEnums(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	cases := []struct{ schema, goType string }{
		{"BucketName", "Bucket"},
		{"Direction", "Direction"},
		{"MessageType", "MessageType"},
		{"Message.status", "MessageStatus"},
		{"Media.media_status", "MediaStatus"},
		{"ConversationChannel", "Channel"}, // the SDK's Channel adds sms, a key of ceiling_hours_by_channel only
		{"listConversations.status", "ConversationStatus"},
	}
	for _, tc := range cases {
		t.Run(tc.schema, func(t *testing.T) {
			var s *openapi3.Schema
			if op, name, ok := strings.Cut(tc.schema, "."); ok && oascheck.Operation(doc, op) != nil {
				s = oascheck.Operation(doc, op).Parameters.GetByInAndName("query", name).Schema.Value
			} else {
				s, err = oascheck.Schema(doc, tc.schema)
				require.NoError(t, err)
			}
			values, err := oascheck.SourceConstsOfType(coreDir, tc.goType)
			require.NoError(t, err)
			if tc.goType == "Channel" {
				values = slices.DeleteFunc(values, func(v string) bool { return v == string(convo.ChannelSMS) })
			}
			assert.Equal(t, oascheck.Enum(s), values, "values of %s in the document vs the %s constants", tc.schema, tc.goType)
		})
	}
}

func TestOpenAPIDriftErrorCodes(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	enum, err := oascheck.Schema(doc, "ErrorCode")
	require.NoError(t, err)
	documented := oascheck.Enum(enum)

	sdk, err := oascheck.SourceConstsOfType(coreDir, "ErrorCode")
	require.NoError(t, err)
	fakeCodes, err := oascheck.SourceConsts(fakeDir, "code")
	require.NoError(t, err)
	var union []string
	for _, c := range append(sdk, fakeCodes...) {
		union = appendNew(union, c)
	}
	sort.Strings(union)
	assert.Equal(t, documented, union, "the document's ErrorCode values vs the SDK's ErrorCode constants and the fake's own codes")
	assert.Subset(t, documented, oascheck.ResponseCodes(doc), "every code a response names is an ErrorCode")
}
