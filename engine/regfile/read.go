package regfile

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrTooLarge is wrapped by ReadRegular's error for a file over its limit.
var ErrTooLarge = errors.New("too large")

// ReadRegular reads the whole of path, which must be a regular file (see
// Check) of at most limit bytes. A larger file is refused before any of it
// is read, with an error naming the path, its size and the limit and
// wrapping ErrTooLarge. The files a user names (flags, arguments, the
// config file) are read with it, so a mistyped path is reported, not read
// until memory runs out.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n := st.Size(); n > limit {
		size := sizeString(n)
		if size == sizeString(limit) {
			// Rounded, it would read as the limit itself.
			size = fmt.Sprintf("%d bytes", n)
		}
		return nil, tooLarge(path, size, limit)
	}
	// The file may grow while it is read; read one byte past the limit
	// to notice.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, "more than "+sizeString(limit), limit)
	}
	return data, nil
}

func tooLarge(path, size string, limit int64) error {
	return fmt.Errorf("%s is %w (%s; the limit is %s)", path, ErrTooLarge, size, sizeString(limit))
}

// sizeString writes n bytes in binary units to one decimal, dropping a
// ".0" ("64 MiB", "1.5 KiB", "12 bytes").
func sizeString(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + units[i:i+1] + "iB"
}
