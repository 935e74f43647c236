// Package abi is the boundary with the TypeScript host (src/engine/wasm): plain bytes in linear memory.
//
// A request is [u32 little-endian header length][header JSON][file contents, concatenated in the
// order the header lists them]. An answer is JSON: {"ok":true,"output":...} or
// {"ok":false,"error":...,"panic":bool}. Buffers handed out by alloc and by call stay reachable
// (in `pinned`) until the host frees them, so the garbage collector never moves or reuses them.
package abi

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"unsafe"
)

var pinned = map[uint32][]byte{}

func pin(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	p := uint32(uintptr(unsafe.Pointer(&b[0])))
	pinned[p] = b
	return p
}

//go:wasmexport alloc
func alloc(size uint32) uint32 { return pin(make([]byte, size)) }

//go:wasmexport free
func free(ptr uint32) { delete(pinned, ptr) }

//go:wasmexport set_memory_limit
func setMemoryLimit(bytes uint64) { debug.SetMemoryLimit(int64(bytes)) }

// collectDue is how close to its goal the heap must be for collect_if_due to collect now: close
// enough that the next request would most likely run the collection itself.
const collectDue = 0.8

var heapSamples = []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}

// collectIfDue runs the collection the next request would otherwise run, now, while the host is
// busy with the last answer: on WebAssembly the collector has one thread, so a collection inside a
// request adds its whole time to that request. It collects only when the heap is near its goal, so
// it moves collections in time and adds (almost) none. Returns 1 if it collected.
//
//go:wasmexport collect_if_due
func collectIfDue() uint32 {
	metrics.Read(heapSamples)
	goal, used := heapSamples[0].Value.Uint64(), heapSamples[1].Value.Uint64()
	if goal == 0 || float64(used) < collectDue*float64(goal) {
		return 0
	}
	runtime.GC()
	return 1
}

// Op runs one operation on its JSON arguments and the request's files; it returns the output text.
type Op func(args json.RawMessage, files Files) (string, error)

var ops = map[string]Op{}

// Register makes an operation callable by name; each module registers its own in init.
func Register(name string, op Op) { ops[name] = op }

// Files is a request's file set, in the order the host sent it.
type Files struct {
	List     []File
	Contents [][]byte
}

// File is one entry of a request's file set: a slash path relative to the file set's root.
type File struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

type header struct {
	Op    string          `json:"op"`
	Files []File          `json:"files"`
	Args  json.RawMessage `json:"args"`
}

type answer struct {
	OK     bool   `json:"ok"`
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	Panic  bool   `json:"panic,omitempty"`
}

// call runs one request and returns (answer pointer << 32 | answer length); the host frees both buffers.
//
//go:wasmexport call
func call(ptr, size uint32) uint64 {
	out := answerBytes(dispatch(pinned[ptr][:size]))
	return uint64(pin(out))<<32 | uint64(len(out))
}

func answerBytes(a answer) []byte {
	b, err := json.Marshal(a)
	if err != nil {
		b, _ = json.Marshal(answer{Error: "encoding the answer: " + err.Error()})
	}
	return b
}

func dispatch(req []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Error: fmt.Sprint(r), Panic: true}
		}
	}()
	h, contents, err := decode(req)
	if err != nil {
		return answer{Error: "bad request: " + err.Error()}
	}
	var out string
	switch op, found := ops[h.Op]; {
	case found:
		out, err = op(h.Args, Files{h.Files, contents})
	case h.Op == "panic":
		// Lets the host's tests prove that a panic inside an operation comes back as an error.
		panic("panic requested by the host")
	case h.Op == "exit":
		// Lets the host's tests prove that a module that dies is replaced by a fresh instance.
		os.Exit(3)
	default:
		err = fmt.Errorf("unknown operation %q", h.Op)
	}
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{OK: true, Output: out}
}

func decode(req []byte) (header, [][]byte, error) {
	var h header
	if len(req) < 4 {
		return h, nil, fmt.Errorf("%d bytes", len(req))
	}
	n := int(binary.LittleEndian.Uint32(req))
	if n > len(req)-4 {
		return h, nil, fmt.Errorf("header length %d beyond the request", n)
	}
	if err := json.Unmarshal(req[4:4+n], &h); err != nil {
		return h, nil, err
	}
	rest := req[4+n:]
	contents := make([][]byte, len(h.Files))
	for i, f := range h.Files {
		if f.Size < 0 || f.Size > len(rest) {
			return h, nil, fmt.Errorf("file %q: size %d beyond the request", f.Path, f.Size)
		}
		contents[i], rest = rest[:f.Size], rest[f.Size:]
	}
	return h, contents, nil
}

