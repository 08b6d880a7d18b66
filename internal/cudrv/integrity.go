package cudrv

import "encoding/binary"

// The CUDA runtime (12.x) asks the driver, through a private export
// table, to answer a challenge before it makes any other call: for
// runtime versions ending in 0 or 1 the answer is a fixed value, and for
// later ones it is an HMAC-MD2 (RFC 1319, RFC 2104 with MD2's 16-byte
// block) under a fixed key of a message built from the driver and runtime
// versions, the process and thread ids, the addresses of two export
// tables and of the check function, the time the runtime passes, and
// each device's UUID and PCI location. The runtime computes the same
// value and refuses a driver whose answer differs.

// IntegrityDevice is what the integrity message holds of one device.
type IntegrityDevice struct {
	UUID                         [16]byte
	PCIDomain, PCIBus, PCIDevice uint32
}

// IntegrityInput is the integrity message.
type IntegrityInput struct {
	DriverVersion, RuntimeVersion uint32
	ProcessID, ThreadID           uint32
	RuntimeTable                  uint64 // address of the runtime interface table
	CheckTable                    uint64 // address of the integrity table
	CheckFunc                     uint64 // address of the check function
	Timestamp                     uint64
	Devices                       []IntegrityDevice
}

// integrityKey is the HMAC key.
var integrityKey = [16]byte{0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52, 0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f}

// integrityFixed is the answer for runtime versions ending in 0 (in 1,
// byte 7 is 24 instead).
var integrityFixed = [16]byte{0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33, 0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e}

// IntegrityHash returns the answer to the runtime's challenge, as the 16
// bytes the check function stores.
func IntegrityHash(in IntegrityInput) [16]byte {
	switch in.RuntimeVersion % 10 {
	case 0:
		return integrityFixed
	case 1:
		h := integrityFixed
		h[7] = 24
		return h
	}
	msg := make([]byte, 48, 48+28*len(in.Devices))
	le := binary.LittleEndian
	le.PutUint32(msg[0:], in.DriverVersion)
	le.PutUint32(msg[4:], in.RuntimeVersion)
	le.PutUint32(msg[8:], in.ProcessID)
	le.PutUint32(msg[12:], in.ThreadID)
	le.PutUint64(msg[16:], in.RuntimeTable)
	le.PutUint64(msg[24:], in.CheckTable)
	le.PutUint64(msg[32:], in.CheckFunc)
	le.PutUint64(msg[40:], in.Timestamp)
	for _, d := range in.Devices {
		msg = append(msg, d.UUID[:]...)
		msg = le.AppendUint32(msg, d.PCIDomain)
		msg = le.AppendUint32(msg, d.PCIBus)
		msg = le.AppendUint32(msg, d.PCIDevice)
	}
	return hmacMD2(integrityKey, msg)
}

// hmacMD2 is HMAC (RFC 2104) over MD2, whose block is 16 bytes.
func hmacMD2(key [16]byte, msg []byte) [16]byte {
	var pad [16]byte
	for i := range pad {
		pad[i] = key[i] ^ 0x36
	}
	var h md2
	h.write(pad[:])
	h.write(msg)
	inner := h.sum()
	for i := range pad {
		pad[i] = key[i] ^ 0x5c
	}
	h = md2{}
	h.write(pad[:])
	h.write(inner[:])
	return h.sum()
}

// md2 is the MD2 message digest (RFC 1319).
type md2 struct {
	x     [48]byte
	check [16]byte
	last  byte // the checksum byte updated last
	buf   [16]byte
	n     int
}

func (h *md2) write(p []byte) {
	for _, c := range p {
		h.buf[h.n] = c
		h.n++
		if h.n == 16 {
			h.block(h.buf[:])
			h.n = 0
		}
	}
}

func (h *md2) block(b []byte) {
	for j := range 16 {
		h.x[16+j] = b[j]
		h.x[32+j] = h.x[j] ^ b[j]
		h.check[j] ^= md2S[b[j]^h.last]
		h.last = h.check[j]
	}
	t := byte(0)
	for j := range 18 {
		for k := range 48 {
			h.x[k] ^= md2S[t]
			t = h.x[k]
		}
		t += byte(j)
	}
}

func (h *md2) sum() [16]byte {
	pad := byte(16 - h.n)
	for h.n != 0 {
		h.write([]byte{pad})
	}
	if pad == 16 {
		var p [16]byte
		for i := range p {
			p[i] = 16
		}
		h.block(p[:])
	}
	c := h.check
	h.block(c[:])
	var out [16]byte
	copy(out[:], h.x[:16])
	return out
}

// md2S is MD2's substitution table, built from the digits of pi (RFC 1319).
var md2S = [256]byte{
	41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
	98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
	30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
	190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
	169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
	128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
	255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
	79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
	69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
	27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
	85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
	44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
	106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
	120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
	242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
	49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
}
