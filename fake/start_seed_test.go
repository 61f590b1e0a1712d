package fake

import (
	"os"
	"runtime"
	"slices"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server keeps its start data as JSON, not the decoded seed it was
// given: a big state file is not held twice. Reset still brings it back.
func TestServerKeepsNoDecodedSeed(t *testing.T) {
	seed := sampleSeed(t)
	require.NotNil(t, seed.Now, "the sample pins its clock")
	ref := weak.Make(seed)
	s, err := NewHandler(WithSeed(seed))
	require.NoError(t, err)
	want := shape(s)
	seed = nil
	runtime.GC()
	assert.Nil(t, ref.Value(), "the server holds the seed it was given")

	second, ok := s.CompanyByKey("second-company-key")
	require.True(t, ok, "the sample's second company")
	second.AddContact(Contact{ChannelAccountID: second.Channels()[0].ID, PhoneNumber: "5521900002222"})
	require.NoError(t, second.Reset())
	assert.Equal(t, want, shape(s), "each company keeps its own part of the start seed")

	s.Clear()
	require.Empty(t, s.Company().Contacts())
	s.Reset()
	assert.Equal(t, want, shape(s))
	s.Company().AddContact(Contact{ChannelAccountID: "0b6f2c1e-1111-4a5b-9c3d-000000000001", PhoneNumber: "5511900001111"})
	require.NoError(t, s.Company().Reset())
	assert.Equal(t, want, shape(s))
}

// With WithSeedDocument the server keeps the caller's document for Reset
// and makes the caller's changes again on each copy it decodes.
func TestWithSeedDocument(t *testing.T) {
	doc, err := os.ReadFile("testdata/sample-seed.json")
	require.NoError(t, err)
	edit := func(seed *Seed) { seed.Companies[0].Contacts[0].Name = "Edited" }
	seed, err := DecodeSeedBytes(doc)
	require.NoError(t, err)
	edit(seed)
	s, err := NewHandler(WithSeedDocument(seed, doc, edit))
	require.NoError(t, err)
	want := shape(s)
	require.Contains(t, want[0], "Edited")

	s.Clear()
	s.Reset()
	assert.Equal(t, want, shape(s))
	require.NoError(t, s.Company().Load(CompanySeed{}))
	require.NoError(t, s.Company().Reset())
	assert.Equal(t, want, shape(s), "a company goes back to its part, edited")
}

// sampleSeed is testdata/sample-seed.json, loaded.
func sampleSeed(t *testing.T) *Seed {
	t.Helper()
	f, err := os.Open("testdata/sample-seed.json")
	require.NoError(t, err)
	defer f.Close()
	seed, err := LoadSeed(f)
	require.NoError(t, err)
	return seed
}

// shape is what a seed made of the server, apart from generated ids: the
// companies' contacts' names and their conversations' message texts.
func shape(s *Server) [][]string {
	var out [][]string
	for _, cs := range s.ExportSeed().Companies {
		var names []string
		for _, ct := range cs.Contacts {
			names = append(names, ct.Name)
		}
		for _, cv := range cs.Conversations {
			for _, m := range cv.Messages {
				names = append(names, m.Text)
			}
		}
		slices.Sort(names)
		out = append(out, names)
	}
	return out
}
