package goolib

import "testing"

func TestContainsInt(t *testing.T) {
	table := []struct {
		a     int
		slice []int
		want  bool
	}{
		{1, []int{1, 2}, true},
		{3, []int{1, 2}, false},
	}
	for _, tt := range table {
		if got := ContainsInt(tt.a, tt.slice); got != tt.want {
			t.Errorf("ContainsInt(%d, %v) = %t, want %t", tt.a, tt.slice, got, tt.want)
		}
	}
}

func TestContainsString(t *testing.T) {
	table := []struct {
		a     string
		slice []string
		want  bool
	}{
		{"a", []string{"a", "b"}, true},
		{"c", []string{"a", "b"}, false},
	}
	for _, tt := range table {
		if got := ContainsString(tt.a, tt.slice); got != tt.want {
			t.Errorf("ContainsString(%q, %v) = %t, want %t", tt.a, tt.slice, got, tt.want)
		}
	}
}

func TestVerify(t *testing.T) {
	if err := (&PkgSpec{Name: "x", Arch: "mips"}).verify(); err == nil {
		t.Error("verify accepted an invalid architecture")
	}
}
