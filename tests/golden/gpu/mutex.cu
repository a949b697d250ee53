
/* test mutex: threads 2, locations 1 */
extern "C" __global__ void __launch_bounds__(1) progress_test_0(
        int *memory, int *failed, unsigned int *count,
        const unsigned long long *deadline, int h, unsigned int m, int *trace) {
    int instance, thread;
    progress_slot(h, blockIdx.x, 2u, m, &instance, &thread);
    if (trace) trace[blockIdx.x] = instance * 2 + thread;
    int *const mem = memory + (size_t)instance * 1;
    const unsigned long long limit = *deadline;
    switch (thread) {
    case 0: goto T0_0;
    case 1: goto T1_0;
    default: return;
    }
    T0_0:  /* AXB(m, 1, 0, true, 1) */
      if (AXB_XCHG(&mem[0], 1) == 1) { PROGRESS_SPIN(); goto T0_0; }
    /* AXB(m, 0, end, true, 0) */
      (void)AXB_XCHG(&mem[0], 0);
    /* thread 0 ends */
      return;
    T1_0:  /* AXB(m, 1, 0, true, 1) */
      if (AXB_XCHG(&mem[0], 1) == 1) { PROGRESS_SPIN(); goto T1_0; }
    /* AXB(m, 0, end, true, 0) */
      (void)AXB_XCHG(&mem[0], 0);
    /* thread 1 ends */
      return;
}
