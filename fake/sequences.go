package fake

import (
	"net/http"

	convo "github.com/convoapi/convo-go"
)

// Texts of the sequence cancel (data.message).
const (
	MsgSequenceCanceled = "Sequence canceled successfully."
	MsgNothingToCancel  = "No scheduled sequence to cancel."
)

// handleCancelSequence serves POST /chatapp/sequences/cancel:
// 200 with canceled true when a scheduled sequence was canceled, false when
// there was nothing to cancel (so true once, then false). Without
// phone_number_id the contact is the company's one with that phone and the
// most recent interaction. CANCEL_FAILED (500) is produced by a fault rule.
func (s *Server) handleCancelSequence(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	_, pnid, norm, ok := s.contactRequest(w, r)
	if !ok {
		return
	}
	canceled := false
	found := s.updateContact(w, r, co, pnid, norm, func(ct *contact) {
		if canceled = ct.sequence == SequenceScheduled; canceled {
			ct.sequence = SequenceCanceled
		}
	})
	if !found {
		return
	}
	msg := MsgNothingToCancel
	if canceled {
		msg = MsgSequenceCanceled
	}
	s.writeJSON(w, http.StatusOK, convo.CancelResult{Canceled: canceled, Message: msg})
}
