/* dl.c — dlclose: before the real call, the unwinder's module table
 * stops naming the modules it may unmap; after it, a fresh table
 * (core/modlive.c).
 *
 * dlopen and dlmopen are deliberately not wrapped: glibc picks the
 * caller's RUNPATH, $ORIGIN and link-map namespace from their return
 * address, so a wrapper calling the real function would make the program
 * find other libraries (or none). The unwinder finds modules loaded since
 * its last table through _dl_find_object instead. dlclose looks at no
 * caller. */
#include <dlfcn.h>

#include "../core/modules.h"
#include "interpose.h"

GT_EXPORT int dlclose(void *handle)
{
	return gt_modules_dlclose(handle);
}
