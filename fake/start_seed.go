package fake

// startSeed is the data a company is reset to ([Company.Reset]): its part
// of the seed it was loaded from. The seed is kept as JSON (compact, or
// the caller's own document: WithSeedDocument), shared by the companies it
// loaded, and decoded again when a company is reset:
// decoded, it would take about twice the memory of the store it made (some
// 480 bytes a message), and a server loaded from a big state file would
// hold both.
type startSeed struct {
	doc   seedDoc
	index int // the company's place in it
}

// company is the company's seed.
func (st *startSeed) company() (CompanySeed, error) {
	seed, err := st.doc.decode()
	if err != nil {
		return CompanySeed{}, err
	}
	return seed.Companies[st.index], nil
}

// loadStart loads the seed of WithSeed and keeps it as JSON for Reset, not
// as given (see startSeed): raw, the document seed was decoded from, and
// edit, what changed in it since (WithSeedDocument), else the seed
// encoded. Encoding the seed and loading it only read it, and for a large
// seed each takes about as long: the encoding runs beside the load, and
// the companies get their start data once both are done.
func (s *Server) loadStart(seed *Seed, raw []byte, edit func(*Seed)) error {
	encoded := make(chan seedDoc, 1)
	if raw != nil {
		encoded <- seedDoc{pieces: [][]byte{raw}, edit: edit}
	} else {
		go func() { encoded <- encodeSeed(seed) }()
	}
	err := s.load(seed, nil)
	doc := <-encoded
	if err != nil {
		return err
	}
	s.startDoc = &doc
	s.mu.Lock()
	defer s.mu.Unlock()
	// load made the server's companies from the seed's, in its order (the
	// first is the default company).
	for i := range seed.Companies {
		s.companies[i].start = &startSeed{doc: doc, index: i}
	}
	return nil
}
