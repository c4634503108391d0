// cpuprof_go: two goroutines burn CPU, one twice the work of the other,
// with runtime/trace and the CPU profiler both on, so the Go runtime writes
// CPUSample events into the trace (test/integration/test_cpu_tool.py).
//
// usage: cpuprof_go TRACE_OUT PROFILE_OUT UNITS
// burnTwice does 2*UNITS million rounds of xorshift, burnOnce UNITS million.
package main

import (
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"sync"
)

var sink uint64

// Both burners spin the same loop, written out in each so that the
// samples land in the burner itself (flat), not in a shared callee.
//go:noinline
func burnTwice(units int) uint64 {
	x := uint64(units) | 1
	for i := 0; i < 2*units*1000000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func burnOnce(units int) uint64 {
	x := uint64(units) | 3
	for i := 0; i < units*1000000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	if len(os.Args) != 4 {
		os.Stderr.WriteString("usage: cpuprof_go TRACE_OUT PROFILE_OUT UNITS\n")
		os.Exit(2)
	}
	units, err := strconv.Atoi(os.Args[3])
	if err != nil {
		panic(err)
	}
	tf, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pf, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		panic(err)
	}
	if err := trace.Start(tf); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	var a, b uint64
	wg.Add(2)
	go func() { defer wg.Done(); a = burnTwice(units) }()
	go func() { defer wg.Done(); b = burnOnce(units) }()
	wg.Wait()
	sink = a + b
	trace.Stop()
	pprof.StopCPUProfile()
	tf.Close()
	pf.Close()
}
