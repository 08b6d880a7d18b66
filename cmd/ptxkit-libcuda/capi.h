/* The C half of ptxkit's libcuda.so.1: per-thread current contexts,
   cuGetProcAddress's table, the private export tables the CUDA runtime
   requests, and calls of the program's callbacks. The driver itself is in
   Go (the exported functions of this command, on internal/cudrv). */
#ifndef PTXKIT_CAPI_H
#define PTXKIT_CAPI_H
#include <stdint.h>
#include <stddef.h>

uintptr_t ptxkit_current(void);
void ptxkit_set_current(uintptr_t ctx);
int ptxkit_push_current(uintptr_t ctx);
uintptr_t ptxkit_pop_current(void);

void *ptxkit_ptr(uint64_t a);
uint64_t ptxkit_addr(const void *p);
size_t ptxkit_strnlen(const char *s, size_t max);
uint32_t ptxkit_tid(void);

void ptxkit_call_stream_cb(void *fn, uintptr_t stream, int status, void *data);
void ptxkit_call_host_fn(void *fn, void *data);
void ptxkit_write_stdout(const void *p, size_t n);
void *ptxkit_map_fixed(uint64_t addr, size_t n);

int ptxkit_export_table(const void **table, const unsigned char *uuid);
int ptxkit_proc_address(const char *name, void **pfn, int version, uint64_t flags, int *status);
const void *ptxkit_table_address(int which);
int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status);
int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);
#endif
