
/* test pc_decreasing: threads 2, locations 1; its threads are lanes of one warp */
extern "C" __global__ void __launch_bounds__(32) progress_test_0(
        int *memory, int *failed, unsigned int *count,
        const unsigned long long *deadline, int h, unsigned int m, int *trace) {
    int instance, thread;
    if (!progress_lane_slot(h, blockIdx.x, threadIdx.x, 2u, m, &instance, &thread)) return;
    if (trace) trace[blockIdx.x * blockDim.x + threadIdx.x] = instance * 2 + thread;
    int *const mem = memory + (size_t)instance * 1;
    const unsigned long long limit = *deadline;
    switch (thread) {
    case 0: goto T0_0;
    case 1: goto T1_0;
    default: return;
    }
    T0_0:  /* AXB(flag, 0, 0, false, 0) */
      if (AXB_LOAD(&mem[0]) == 0) { PROGRESS_SPIN(); goto T0_0; }
    /* thread 0 ends */
      return;
    T1_0:  /* AXB(flag, 0, end, true, 1) */
      (void)AXB_XCHG(&mem[0], 1);
    /* thread 1 ends */
      return;
}
