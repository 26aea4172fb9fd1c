package cachetrace

import (
	"bytes"
	"encoding/binary"
)

// markerID is the low nibble of the skippable frame's magic
// (0x184D2A50..5F) that cachetrace uses.
const markerID = 0xC

// markerText is the payload of the marker frame.
const markerText = "cachetrace oracleGeneral v1"

// marker is the zstd skippable frame every recorder file begins with:
// decoders skip it, and cachebench's readers recognise by it a file that a
// killed process may have left with a torn end.
var marker = func() []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50|markerID)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(markerText)))
	return append(b, markerText...)
}()

// Marked reports whether the bytes that start a file are the marker
// frame of a file a Recorder wrote.
func Marked(head []byte) bool { return bytes.HasPrefix(head, marker) }

// MarkerLen is how many bytes of a file's start Marked needs.
const MarkerLen = 8 + len(markerText)
