// A CAS lock written as macros, as AnKi's job manager writes it: Slang puts the code a
// macro expands to at the lines of its #define (10 and 12), glslang at the line that uses
// it (16 and 18); the guard asked for the atomics at 16 and 18 only and refused Slang's
// module. Each workgroup adds 1 under the lock: b[1] ends at 2.
RWStructuredBuffer<uint> b;

#define LOCK(lock) \
    for (uint held = 1; held != 0;) \
    { \
        InterlockedCompareExchange(lock, 0, 1, held); \
    }
#define UNLOCK(lock) InterlockedExchange(lock, 0, held)

[numthreads(1, 1, 1)]
void main() {
    uint held;
    LOCK(b[0]);
    b[1] = b[1] + 1;
    UNLOCK(b[0]);
}
