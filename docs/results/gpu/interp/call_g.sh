# Device call G: the wgpu GPU tests on the H200's Vulkan driver (per-test timeout, durations), then the reruns of
# the 3t5i tests that failed under plain (5 iterations) and under rr (2 iterations, packs of 128 tests so rows
# land as they finish), each under the heuristic it failed under. Call F's plain,rr rerun wrote no row in 70 s.
. docs/results/gpu/interp/setup.sh
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_g.txt; T0=$SECONDS; K=docs/results/suites/3t5i.keys.gz; CSV=docs/results/gpu/interp/t3t5i.csv
awk -F, 'NR > 1 && $2 ~ /^F/ {print $1}' $CSV > /tmp/plain.txt
awk -F, 'NR > 1 && $3 ~ /^F/ {print $1}' $CSV > /tmp/rr.txt
echo "failed under plain: $(wc -l < /tmp/plain.txt); under rr: $(wc -l < /tmp/rr.txt)" | tee -a $L
timeout 170 python3 -P -m pytest tests/test_gpu_wgpu_interp.py tests/test_gpu_wgpu.py -n0 -v -rs -p no:cacheprovider --timeout 60 --durations=0 -k "not agrees_with_the_reference" > $OUT/pytest_wgpu_h200.txt 2>&1; echo "pytest exit $?" | tee -a $L; grep -E "passed|failed|error" $OUT/pytest_wgpu_h200.txt | tail -3 | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 -P docs/results/gpu/interp/p.py run --keys $K --only /tmp/plain.txt --heuristics plain --iterations 5 -o $OUT/t3t5i_rerun_plain.csv 2>&1 | tail -1 | tee -a $L
echo "rerun plain: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i_rerun_plain.csv) - 1))" | tee -a $L
S=$SECONDS; timeout -s INT $((570 - SECONDS + T0)) python3 -P docs/results/gpu/interp/p.py run --keys $K --only /tmp/rr.txt --heuristics rr --iterations 2 --pack 8388096 -o $OUT/t3t5i_rerun_rr.csv 2>&1 | tail -1 | tee -a $L
echo "rerun rr: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i_rerun_rr.csv) - 1))" | tee -a $L
cd $OUT && rm -f *.jsonl && ls -la
