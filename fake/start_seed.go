package fake

import "encoding/json"

// startSeed is the data a company is reset to ([Company.Reset]): its part
// of the seed it was loaded from. The seed is kept as compact JSON, shared
// by the companies it loaded, and decoded again when a company is reset:
// decoded, it would take about twice the memory of the store it made (some
// 480 bytes a message), and a server loaded from a big state file would
// hold both.
type startSeed struct {
	doc   []byte // a Seed in JSON
	index int    // the company's place in it
}

// encodeSeed is seed as compact JSON. Nothing in a seed fails to encode.
func encodeSeed(seed *Seed) []byte {
	b, _ := json.Marshal(seed)
	return b
}

// decodeSeed reads a document encodeSeed made.
func decodeSeed(doc []byte) (*Seed, error) {
	var seed Seed
	if err := json.Unmarshal(doc, &seed); err != nil {
		return nil, err
	}
	return &seed, nil
}

// company is the company's seed.
func (st *startSeed) company() (CompanySeed, error) {
	seed, err := decodeSeed(st.doc)
	if err != nil {
		return CompanySeed{}, err
	}
	return seed.Companies[st.index], nil
}
