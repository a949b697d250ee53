// A CAS lock around a loop over a runtime array, as a game engine's test writes it
// (Jimara's CriticalSection_SingleLock_Compute.comp): the loop's condition names the
// buffer only through .length(), which compiles to OpArrayLength and reads no memory.
// The guard asked for a read there and refused the kernel as 'the wait was deleted'.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Elements { uint values[]; } elements;
layout(set = 0, binding = 1) buffer Lock { uint value; } lock;
void main() {
    bool waiting = true;
    while (waiting) {
        if (atomicCompSwap(lock.value, 0u, 1u) == 0u) {
            for (int i = 0; i < elements.values.length(); i++)
                elements.values[i] = elements.values[i] + 1u;
            atomicExchange(lock.value, 0u);
            waiting = false;
        }
    }
}
