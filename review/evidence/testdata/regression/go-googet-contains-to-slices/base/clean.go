package main

import (
	"fmt"
	"os"

	"example.com/googet/goolib"
)

// PackageState is an installed package.
type PackageState struct {
	Spec          goolib.PkgSpec
	InstalledApps []string
}

// cleanPackages removes the installed packages named in pl.
func cleanPackages(state []PackageState, pl []string) {
	for _, pkg := range state {
		if goolib.ContainsString(pkg.Spec.Name, pl) {
			fmt.Println("Removing", pkg.Spec.Name)
		}
	}
}

// clean removes every file of the cache directory that is not in il (the files to keep).
func clean(dir string, il []string) error {
	files, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading cache %s: %w", dir, err)
	}
	for _, f := range files {
		file := f.Name()
		if !goolib.ContainsString(file, il) {
			if err := os.RemoveAll(dir + "/" + file); err != nil {
				return err
			}
		}
	}
	return nil
}

func main() {
	if err := clean(os.TempDir(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cleanPackages(nil, os.Args[1:])
}
