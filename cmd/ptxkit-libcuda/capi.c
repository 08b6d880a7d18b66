#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "capi.h"
#include "_cgo_export.h"

/* Current contexts: a stack per thread, as cuCtxPushCurrent keeps. */
#define CTX_STACK 64
static __thread uintptr_t ctx_stack[CTX_STACK];
static __thread int ctx_depth;

uintptr_t ptxkit_current(void) { return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : 0; }

void ptxkit_set_current(uintptr_t ctx) {
	if (ctx_depth == 0) {
		if (ctx == 0) return;
		ctx_depth = 1;
	}
	ctx_stack[ctx_depth - 1] = ctx;
	if (ctx == 0) ctx_depth--;
}

int ptxkit_push_current(uintptr_t ctx) {
	if (ctx_depth == CTX_STACK) return 0;
	ctx_stack[ctx_depth++] = ctx;
	return 1;
}

uintptr_t ptxkit_pop_current(void) {
	if (ctx_depth == 0) return 0;
	return ctx_stack[--ctx_depth];
}

void *ptxkit_ptr(uint64_t a) { return (void *)(uintptr_t)a; }
uint64_t ptxkit_addr(const void *p) { return (uint64_t)(uintptr_t)p; }
size_t ptxkit_strnlen(const char *s, size_t max) { return strnlen(s, max); }
uint32_t ptxkit_tid(void) { return (uint32_t)(uintptr_t)pthread_self(); }

typedef void (*stream_cb)(uintptr_t, int, void *);
typedef void (*host_fn)(void *);
void ptxkit_call_stream_cb(void *fn, uintptr_t stream, int status, void *data) { ((stream_cb)fn)(stream, status, data); }
void ptxkit_call_host_fn(void *fn, void *data) { ((host_fn)fn)(data); }
void ptxkit_write_stdout(const void *p, size_t n) {
	fwrite(p, 1, n, stdout);
	fflush(stdout);
}

/* ptxkit_map_fixed maps n bytes of zeroed memory at exactly addr, or
   returns NULL when the range is taken. */
void *ptxkit_map_fixed(uint64_t addr, size_t n) {
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
	void *p = mmap((void *)(uintptr_t)addr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) return NULL;
	if ((uintptr_t)p != addr) { /* a kernel without MAP_FIXED_NOREPLACE placed it elsewhere */
		munmap(p, n);
		return NULL;
	}
	return p;
}

/* ---- Private export tables (cuGetExportTable) ----
   Slot 0 of most tables is the table's size in bytes. Slots whose use is
   not known answer CUDA_ERROR_NOT_SUPPORTED and say so when PTXKIT_TRACE
   is set. */

static int trace_on(void) {
	static int on = -1;
	if (on < 0) on = getenv("PTXKIT_TRACE") != NULL;
	return on;
}

#define UNKNOWN_SLOT(table, slot)                                                      \
	static int table##_slot##slot(void) {                                              \
		if (trace_on()) fprintf(stderr, "ptxkit: export table %s slot %d called\n", #table, slot); \
		return 801;                                                                    \
	}

UNKNOWN_SLOT(rt, 3) UNKNOWN_SLOT(rt, 4) UNKNOWN_SLOT(rt, 5)
UNKNOWN_SLOT(hooks, 1) UNKNOWN_SLOT(hooks, 3) UNKNOWN_SLOT(hooks, 4) UNKNOWN_SLOT(hooks, 5)
UNKNOWN_SLOT(tls, 1) UNKNOWN_SLOT(tls, 2)
UNKNOWN_SLOT(ctxchk, 1) UNKNOWN_SLOT(integ, 2)

typedef struct {
	uint32_t magic, version;
	const void *data;
	const void *extra;
} fatbin_wrapper;

static int rt_module_from_wrapper(uintptr_t *mod, const fatbin_wrapper *w) {
	if (mod == NULL || w == NULL) return 1;
	if (w->magic != 0x466243B1u) return 200;
	if (trace_on()) fprintf(stderr, "ptxkit: fatbinary wrapper version %u, data %p, extra %p\n", w->version, w->data, w->extra);
	return ptxkitLoadWrapped(mod, (void *)w->data, w->version == 2 ? (void **)w->extra : NULL);
}
static int rt_get_module_from_cubin(uintptr_t *mod, const fatbin_wrapper *w) { return rt_module_from_wrapper(mod, w); }
static int rt_get_primary_context(uintptr_t *ctx, int dev) { return ptxkitPrimaryContext(ctx, dev); }
static int rt_get_module_ex1(uintptr_t *mod, const fatbin_wrapper *w, void *a3, void *a4, unsigned a5) {
	if (trace_on()) fprintf(stderr, "ptxkit: runtime interface slot 6: %p %p %u\n", a3, a4, a5);
	return rt_module_from_wrapper(mod, w);
}
static void rt_fn7(size_t a) { (void)a; }
static int rt_get_module_ex2(const void *fatbin, uintptr_t *mod, void *a3, void *a4, unsigned a5) {
	if (trace_on()) fprintf(stderr, "ptxkit: runtime interface slot 8: %p %p %u\n", a3, a4, a5);
	if (mod == NULL || fatbin == NULL) return 1;
	return ptxkitLoadFatbin(mod, (void *)fatbin);
}
static int rt_launch_kernel(uintptr_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, uintptr_t stream, void **extra) {
	return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, NULL, extra);
}

static const void *cudart_interface[10] = {
	(void *)(10 * sizeof(void *)), rt_get_module_from_cubin, rt_get_primary_context, rt_slot3, rt_slot4, rt_slot5,
	rt_get_module_ex1, rt_fn7, rt_get_module_ex2, rt_launch_kernel,
};

static size_t hooks_space2[1024];
static unsigned char hooks_space6[14];
static void hooks_fn2(void **p, size_t *n) { *p = hooks_space2; *n = sizeof hooks_space2 / sizeof hooks_space2[0]; }
static void hooks_fn6(void **p, size_t *n) { *p = hooks_space6; *n = sizeof hooks_space6; }
static const void *tools_hooks[7] = {
	(void *)(7 * sizeof(void *)), hooks_slot1, hooks_fn2, hooks_slot3, hooks_slot4, hooks_slot5, hooks_fn6,
};

static const void *tools_tls[3] = {(void *)(3 * sizeof(void *)), tls_slot1, tls_slot2};

static int cls_insert(uintptr_t ctx, void *key, void *value, void *dtor) {
	(void)dtor;
	return ptxkitLocalSet(ctx, key, value);
}
static int cls_remove(uintptr_t ctx, void *key) { return ptxkitLocalDelete(ctx, key); }
static int cls_get(void **value, uintptr_t ctx, void *key) { return ptxkitLocalGet(value, ctx, key); }
static const void *context_storage[4] = {cls_insert, cls_remove, cls_get, NULL};

static int ctx_unwrap(uintptr_t ctx, uint32_t *wrapped, uintptr_t *unwrapped) {
	(void)ctx;
	if (wrapped) *wrapped = 0;
	if (unwrapped) *unwrapped = ctx;
	return 0;
}
/* Slot 3 answers a yes/no question about the context (1: yes); runtimes
   from 12.4 on ask it once per context. No context here is special. */
static int ctx_check3(void) { return 0; }
static const void *context_check[4] = {(void *)(4 * sizeof(void *)), ctxchk_slot1, ctx_unwrap, ctx_check3};

static int integrity_check(uint32_t rt_version, uint64_t timestamp, unsigned char *result);
static const void *integrity[3] = {(void *)(3 * sizeof(void *)), integrity_check, integ_slot2};

static int integrity_check(uint32_t rt_version, uint64_t timestamp, unsigned char *result) {
	if (result == NULL) return 1;
	return ptxkitIntegrity(rt_version, timestamp, result, (void *)cudart_interface, (void *)integrity,
	                       (void *)integrity_check, (uint32_t)getpid(), ptxkit_tid());
}

static const struct {
	unsigned char uuid[16];
	const void **table;
	const char *name;
} export_tables[] = {
	{{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, cudart_interface, "runtime interface"},
	{{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, tools_hooks, "tools runtime callback hooks"},
	{{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, tools_tls, "tools TLS"},
	{{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, context_storage, "context-local storage"},
	{{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, context_check, "context checks"},
	{{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, integrity, "integrity check"},
};

int ptxkit_export_table(const void **table, const unsigned char *uuid) {
	for (size_t i = 0; i < sizeof export_tables / sizeof export_tables[0]; i++) {
		if (memcmp(export_tables[i].uuid, uuid, 16) == 0) {
			*table = export_tables[i].table;
			if (trace_on()) fprintf(stderr, "ptxkit: export table %s\n", export_tables[i].name);
			return 0;
		}
	}
	if (trace_on()) {
		fprintf(stderr, "ptxkit: unknown export table ");
		for (int i = 0; i < 16; i++) fprintf(stderr, "%02x", uuid[i]);
		fprintf(stderr, "\n");
	}
	*table = NULL;
	return 500; /* CUDA_ERROR_NOT_FOUND */
}

const void *ptxkit_table_address(int which) { return which == 0 ? (void *)cudart_interface : (void *)integrity; }

/* ---- cuGetProcAddress ---- */

struct ptxkit_proc {
	const char *name;
	int version;
	void *fn;
};
extern const struct ptxkit_proc ptxkit_procs[];

/* ptxkit_proc_address finds name's newest variant whose version is at most
   the one asked for. status is CU_GET_PROC_ADDRESS_SUCCESS (0),
   SYMBOL_NOT_FOUND (1) or VERSION_NOT_SUFFICIENT (2). */
int ptxkit_proc_address(const char *name, void **pfn, int version, uint64_t flags, int *status) {
	(void)flags;
	const struct ptxkit_proc *best = NULL;
	int found = 0;
	for (const struct ptxkit_proc *p = ptxkit_procs; p->name; p++) {
		if (strcmp(p->name, name) != 0) continue;
		found = 1;
		if (p->version <= version && (best == NULL || p->version > best->version)) best = p;
	}
	if (best == NULL) {
		*pfn = NULL;
		if (status) *status = found ? 2 : 1;
		if (trace_on()) fprintf(stderr, "ptxkit: cuGetProcAddress(%s, %d): %s\n", name, version, found ? "version not sufficient" : "not found");
		return 500; /* CUDA_ERROR_NOT_FOUND */
	}
	*pfn = best->fn;
	if (status) *status = 0;
	return 0;
}

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
	if (symbol == NULL || pfn == NULL) return 1;
	return ptxkit_proc_address(symbol, pfn, version, flags, status);
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
	if (symbol == NULL || pfn == NULL) return 1;
	return ptxkit_proc_address(symbol, pfn, version, flags, NULL);
}

/* At exit (the library is unloaded), the timeline of the launches is
   written when ptxkit exec --timeline asked for it. */
__attribute__((destructor)) static void ptxkit_fini(void) { ptxkitWriteTimeline(); }
