package cudrv

import "fmt"

// Result is a CUresult: the status every driver API call returns.
type Result int32

// The CUresult values the driver returns (their numbers are the CUDA
// driver API's).
const (
	Success                   Result = 0
	ErrInvalidValue           Result = 1
	ErrOutOfMemory            Result = 2
	ErrNotInitialized         Result = 3
	ErrDeinitialized          Result = 4
	ErrNoDevice               Result = 100
	ErrInvalidDevice          Result = 101
	ErrInvalidImage           Result = 200
	ErrInvalidContext         Result = 201
	ErrNotMapped              Result = 211
	ErrNoBinaryForGPU         Result = 209
	ErrInvalidPTX             Result = 218
	ErrInvalidSource          Result = 300
	ErrFileNotFound           Result = 301
	ErrSharedObjectInitFailed Result = 303
	ErrInvalidHandle          Result = 400
	ErrNotFound               Result = 500
	ErrNotReady               Result = 600
	ErrIllegalAddress         Result = 700
	ErrLaunchOutOfResources   Result = 701
	ErrLaunchTimeout          Result = 702
	ErrPeerAccessUnsupported  Result = 217
	ErrContextIsDestroyed     Result = 709
	ErrAssert                 Result = 710
	ErrHardwareStackError     Result = 714
	ErrIllegalInstruction     Result = 715
	ErrMisalignedAddress      Result = 716
	ErrInvalidAddressSpace    Result = 717
	ErrInvalidPC              Result = 718
	ErrLaunchFailed           Result = 719
	ErrCooperativeTooLarge    Result = 720
	ErrNotPermitted           Result = 800
	ErrNotSupported           Result = 801
	ErrStreamCaptureInvalid   Result = 901
	ErrUnknown                Result = 999
)

var resultNames = map[Result][2]string{
	Success:                   {"CUDA_SUCCESS", "no error"},
	ErrInvalidValue:           {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	ErrOutOfMemory:            {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	ErrNotInitialized:         {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	ErrDeinitialized:          {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	ErrNoDevice:               {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	ErrInvalidDevice:          {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	ErrInvalidImage:           {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	ErrInvalidContext:         {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	ErrNotMapped:              {"CUDA_ERROR_NOT_MAPPED", "resource not mapped"},
	ErrNoBinaryForGPU:         {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	ErrInvalidPTX:             {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	ErrPeerAccessUnsupported:  {"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
	ErrInvalidSource:          {"CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
	ErrFileNotFound:           {"CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
	ErrSharedObjectInitFailed: {"CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"},
	ErrInvalidHandle:          {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	ErrNotFound:               {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	ErrNotReady:               {"CUDA_ERROR_NOT_READY", "device not ready"},
	ErrIllegalAddress:         {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	ErrLaunchOutOfResources:   {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
	ErrLaunchTimeout:          {"CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	ErrContextIsDestroyed:     {"CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
	ErrAssert:                 {"CUDA_ERROR_ASSERT", "device-side assert triggered"},
	ErrHardwareStackError:     {"CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
	ErrIllegalInstruction:     {"CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
	ErrMisalignedAddress:      {"CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
	ErrInvalidAddressSpace:    {"CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"},
	ErrInvalidPC:              {"CUDA_ERROR_INVALID_PC", "invalid program counter"},
	ErrLaunchFailed:           {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	ErrCooperativeTooLarge:    {"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
	ErrNotPermitted:           {"CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
	ErrNotSupported:           {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	ErrStreamCaptureInvalid:   {"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture"},
	ErrUnknown:                {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// Name returns the CUresult's enumerator name, and false for a value the
// driver does not know (cuGetErrorName then fails with
// CUDA_ERROR_INVALID_VALUE).
func (r Result) Name() (string, bool) {
	n, ok := resultNames[r]
	return n[0], ok
}

// Description returns the CUresult's description (cuGetErrorString).
func (r Result) Description() (string, bool) {
	n, ok := resultNames[r]
	return n[1], ok
}

func (r Result) String() string {
	if n, ok := r.Name(); ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Sticky reports whether the error, once a kernel raised it, breaks the
// context: every later call returns it, as on a GPU.
func (r Result) Sticky() bool {
	switch r {
	case ErrIllegalAddress, ErrAssert, ErrHardwareStackError, ErrIllegalInstruction,
		ErrMisalignedAddress, ErrInvalidAddressSpace, ErrInvalidPC, ErrLaunchFailed, ErrLaunchTimeout:
		return true
	}
	return false
}

// Error is a failed call: the CUresult and, for the log, what went wrong.
type Error struct {
	Code   Result
	Detail string
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Detail }

func errorf(code Result, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}
