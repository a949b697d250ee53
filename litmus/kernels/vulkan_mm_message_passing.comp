// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// message_passing.comp as it is written for the Vulkan memory model
// (`#pragma use_vulkan_memory_model`: OpMemoryModel Logical Vulkan, the
// VulkanMemoryModel and VulkanMemoryModelDeviceScope capabilities): the flag
// is raised by a release store made available at queue-family scope and
// waited on by acquire loads made visible at device scope.
//
// The checker's accesses are sequentially consistent (docs/semantics.md
// section 8): release, acquire, availability, visibility and the scopes
// order nothing more than it already does, so the verdicts are those of
// message_passing.comp, reasoned the same way.
// - unfair: F. fair: workgroup 0 is in F and does not step: P.
// - HSA: workgroup 0, the producer, is the lowest enabled id until it
//   returns, so it is in F: P.
// - OBE: workgroup 1 starts and waits while workgroup 0 has never run: F =
//   {1}, workgroup 0 starves: F weak and strong.
// - HSA+OBE: HSA's part keeps workgroup 0 in F: P.
// - LOBE: workgroup 1 has started, so every id up to 1 is in F: P.
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Flag { uint flag; };
layout(set = 0, binding = 1) buffer Message {
    uint data;
    uint result;
};

void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = 42u;
        atomicStore(flag, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                    gl_SemanticsRelease | gl_SemanticsMakeAvailable);
    } else {
        while (atomicLoad(flag, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                          gl_SemanticsAcquire | gl_SemanticsMakeVisible) == 0u) {
        }
        result = data;
    }
}
