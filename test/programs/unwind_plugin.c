/* unwind_plugin: a shared library that unwind_zoo loads and unloads again
 * (test/integration/test_unwind.py): plugin_fn calls back into the program
 * through a few frames of its own, which the unwinder must cross with the
 * plugin's CFI (built without frame pointers). */
__attribute__((noinline)) static int plugin_inner(void (*cb)(void), int d)
{
	if (d <= 0) {
		cb();
		return 0;
	}
	int r = plugin_inner(cb, d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

int plugin_fn(void (*cb)(void), int d)
{
	int r = plugin_inner(cb, d);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}
