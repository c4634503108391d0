/* fuzz_reader.c — libFuzzer harness: arbitrary bytes through encoder/reader
 * (every cursor) and the `gotrace heap` accounting, report and profile.
 * Build and run: test/fuzz/run.sh (clang -fsanitize=fuzzer,address). */
#include "test/fuzz/fuzz_one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	return 0;
}
