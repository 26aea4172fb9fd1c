package fit

import "github.com/cachebench/cachebench/internal/fileio"

func freeDisk(dir string) (int64, bool) { return fileio.FreeDisk(dir) }
