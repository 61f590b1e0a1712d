// Package phone holds the one phone-number rule of the service (keep the
// digits, which must number 8 to 15),
// shared by the SDK's NormalizePhone and the fake's server-side normalization
// so that both sides agree on which number is which contact.
package phone

import "errors"

// MinDigits and MaxDigits bound a normalized number (E.164 allows at most 15).
const (
	MinDigits = 8
	MaxDigits = 15
)

// ErrInvalid reports a number that has too few or too many digits once
// everything but digits is removed.
var ErrInvalid = errors.New("phone number must have 8 to 15 digits")

// Normalize keeps the digits of s and checks their count: "+55 (11) 98765-4321"
// becomes "5511987654321".
func Normalize(s string) (string, error) {
	digits := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) < MinDigits || len(digits) > MaxDigits {
		return "", ErrInvalid
	}
	return string(digits), nil
}
