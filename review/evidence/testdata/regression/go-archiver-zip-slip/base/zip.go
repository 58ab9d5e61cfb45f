package archiver

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Zip extracts .zip archives.
type Zip struct {
	OverwriteExisting bool
}

// Unarchive unpacks the .zip file at source to destination.
func (z *Zip) Unarchive(source, destination string) error {
	if !strings.HasSuffix(strings.ToLower(source), ".zip") {
		return fmt.Errorf("%s: not a .zip file", source)
	}
	r, err := zip.OpenReader(source)
	if err != nil {
		return fmt.Errorf("opening zip archive for reading: %v", err)
	}
	defer r.Close()
	for _, f := range r.File {
		if err := z.extractNext(f, destination); err != nil {
			return err
		}
	}
	return nil
}

// CheckPath ensures that extracting filename into to stays inside to.
func (*Zip) CheckPath(to, filename string) error {
	to, _ = filepath.Abs(to) // make the destination explicit so that the prefix check cannot be bypassed
	dest := filepath.Join(to, filename)
	// prevent path traversal attacks
	if !strings.HasPrefix(dest, to) {
		return fmt.Errorf("illegal file path: %s", filename)
	}
	return nil
}

func (z *Zip) extractNext(f *zip.File, to string) error {
	errPath := z.CheckPath(to, f.Name)
	if errPath != nil {
		return fmt.Errorf("checking path traversal attempt: %v", errPath)
	}
	return z.extractFile(f, to)
}

func (z *Zip) extractFile(f *zip.File, to string) error {
	to = filepath.Join(to, f.Name)
	if f.FileInfo().IsDir() {
		return os.MkdirAll(to, f.Mode())
	}
	if !z.OverwriteExisting && fileExists(to) {
		return fmt.Errorf("file already exists: %s", to)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: open compressed file: %v", f.Name, err)
	}
	defer rc.Close()
	return writeNewFile(to, rc, f.Mode())
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return !os.IsNotExist(err)
}

func writeNewFile(fpath string, in io.Reader, fm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(fpath), 0755); err != nil {
		return fmt.Errorf("%s: making directory for file: %v", fpath, err)
	}
	out, err := os.Create(fpath)
	if err != nil {
		return fmt.Errorf("%s: creating new file: %v", fpath, err)
	}
	defer out.Close()
	if err := out.Chmod(fm); err != nil {
		return fmt.Errorf("%s: changing file mode: %v", fpath, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("%s: writing file: %v", fpath, err)
	}
	return nil
}
