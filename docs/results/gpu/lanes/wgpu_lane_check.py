"""On the device: the wgpu lane shader's traced placement against heuristics.lane_slot (issue 30)."""
from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, geometry, lane_slot
from progress.gpu.wgpu_backend import WgpuBackend, describe

TWO = "test two\nthread 0\n  AXB(x, 0, end, true, 1)\nthread 1\n  AXB(x, 1, end, true, 2)\n"
THREE = TWO.replace("test two", "test three") + "thread 2\n  AXB(y, 0, end, true, 1)\n"
engine = WgpuBackend(scope="lane")
print("adapter:", describe(engine.adapter), engine.adapter.info.get("description"), "subgroup size:", engine.lanes)
engine.prepare([parse_program(TWO, "two"), parse_program(THREE, "three")])
for index, threads in ((0, 2), (1, 3)):
    for heuristic in HEURISTICS:
        launch = geometry(heuristic, threads, engine.auto_instances(threads))
        blocks = engine.dispatched(launch)
        wanted = [lane_slot(launch, b, lane, engine.lanes) or (-1, -1) for b in range(blocks) for lane in range(engine.lanes)]
        print(f"{threads} threads, {heuristic}: {launch.instances} instances in {blocks} workgroups of {engine.lanes}: "
              f"traced placement == lane_slot: {engine.trace(index, launch) == wanted}; "
              f"failed (3 iterations): {engine.run(index, launch, 3, 0.05)}")
