// Inline PTX in CUDA C++: the VS Code grammar colours the asm strings as PTX.
__device__ unsigned lane_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

__device__ void publish(unsigned *flag, unsigned *data, unsigned v) {
    asm volatile("st.global.u32 [%0], %1;\n\t"
                 "st.release.gpu.global.u32 [%2], 1;"
                 :: "l"(data), "r"(v), "l"(flag) : "memory");
}

__device__ unsigned load_acquire(const unsigned *p) {
    unsigned v;
    __asm__ __volatile__("ld.acquire.gpu.global.u32 %[v], [%[p]];" : [v] "=r"(v) : [p] "l"(p));
    return v;
}
