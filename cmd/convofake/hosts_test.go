package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHostAllowed(t *testing.T) {
	for _, tc := range []struct {
		host  string
		names []string
		anyIP bool
		want  bool
	}{
		{"127.0.0.1:8080", nil, false, true},
		{"127.0.0.1", nil, false, true},
		{"[::1]:8080", nil, false, true},
		{"localhost:8080", nil, false, true},
		{"LOCALHOST", nil, false, true},
		{"evil.example:8080", nil, false, false},
		{"127.0.0.1.nip.io:8080", nil, false, false},
		{"192.168.1.5:8080", nil, false, false},
		{"192.168.1.5:8080", []string{"192.168.1.5"}, false, true},
		{"192.168.1.5:8080", nil, true, true},
		{"fake.internal:8080", []string{"fake.internal"}, false, true},
		{"fake.internal:8080", nil, true, false},
		{"", nil, false, false},
	} {
		assert.Equal(t, tc.want, hostAllowed(tc.host, tc.names, tc.anyIP), "%q %v %v", tc.host, tc.names, tc.anyIP)
	}
}

func TestListenHosts(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		names []string
		anyIP bool
	}{
		{[]string{"127.0.0.1:8080", ""}, []string{"127.0.0.1"}, false},
		{[]string{":8080", ""}, nil, true},
		{[]string{"0.0.0.0:8080", "http://fake.internal:9000/base"}, []string{"fake.internal"}, true},
		{[]string{"[::]:8080", "https://[2001:db8::1]"}, []string{"2001:db8::1"}, true},
		{[]string{"myhost:8080"}, []string{"myhost"}, false},
	} {
		names, anyIP := listenHosts(tc.addrs...)
		assert.Equal(t, tc.names, names, "%v", tc.addrs)
		assert.Equal(t, tc.anyIP, anyIP, "%v", tc.addrs)
	}
}
