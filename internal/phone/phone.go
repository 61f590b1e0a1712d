// Package phone holds the one phone-number rule of the service (a country
// code plus digits, which must number 8 to 15; spaces and + - ( ) . may
// separate them), shared by the SDK's NormalizePhone and the fake's
// server-side normalization so that both sides agree on which number is
// which contact.
package phone

import "errors"

// MinDigits and MaxDigits bound a normalized number (E.164 allows at most 15).
const (
	MinDigits = 8
	MaxDigits = 15
)

// ErrInvalid reports a number that has too few or too many digits once
// the separators are removed. Every invalid number is ErrInvalid for
// errors.Is, ErrNotDigits too.
var ErrInvalid = errors.New("phone number must have 8 to 15 digits")

// ErrNotDigits reports a number holding something other than ASCII digits
// and the separators: a letter, an underscore, a tab, a full-width digit.
// errors.Is(ErrNotDigits, ErrInvalid) holds.
var ErrNotDigits error = notDigitsError{}

type notDigitsError struct{}

func (notDigitsError) Error() string {
	return "phone number must be a country code plus digits; only spaces and + - ( ) . may separate them"
}

func (notDigitsError) Is(target error) bool { return target == ErrInvalid }

// Normalize keeps the digits of s and checks their count: "+55 (11) 98765-4321"
// becomes "5511987654321". Anything but digits, spaces and + - ( ) . is
// ErrNotDigits: "+55 (11) abc 88888-0004" is not a phone number with a typo
// dropped.
func Normalize(s string) (string, error) {
	digits := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			digits = append(digits, c)
		case ' ', '+', '-', '(', ')', '.':
		default:
			return "", ErrNotDigits
		}
	}
	if len(digits) < MinDigits || len(digits) > MaxDigits {
		return "", ErrInvalid
	}
	return string(digits), nil
}
