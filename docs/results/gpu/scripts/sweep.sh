# Deadline sweep over the (test, heuristic) pairs that failed in a first run.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
S=.gpu_carry/oopsla21; W=/tmp/sweep; mkdir -p $W $S  # the suite and this folder's lists, together (@lists name tests relative to themselves)
cp -r litmus/oopsla21/. $S/ && cp docs/results/gpu/scripts/*.lst $S/
r() { # heuristic list deadline iterations
  python3 .gpu_carry/p.py run @$S/$2 --heuristics $1 --deadline $3 --iterations $4 -o $W/$1_$3_$5.csv 2>&1 | tail -1
}
head -8 $S/fail_chunked.lst > $S/fail_chunked8.lst
printf '2t2i/2.axb\n2t3i/3.axb\n' > $S/c20.lst
printf '2t2i/0.axb\n2t3i/1.axb\n' > $S/r20.lst
printf '2t4i/18.axb\n' > $S/p20.lst
SECONDS=0
for h in plain rr chunked; do r $h fail_$h.lst 1ms 5 all; r $h fail_$h.lst 10ms 5 all; done; echo "t=$SECONDS"
for h in plain rr chunked; do r $h fail_$h.lst 100ms 1 all; done; echo "t=$SECONDS"
for h in plain rr chunked; do r $h fail_$h.lst 300ms 1 all; done; echo "t=$SECONDS"
r plain fail_plain.lst 2s 1 all; r rr fail_rr.lst 2s 1 all; r chunked fail_chunked8.lst 2s 1 sample; echo "t=$SECONDS"
r plain p20.lst 20s 1 sample; r rr r20.lst 20s 1 sample; r chunked c20.lst 20s 1 sample; echo "t=$SECONDS"
cp $W/*.json $W/*.jsonl $W/*.csv /tmp/ 2>/dev/null; cd /tmp && tar czf $OUT/sweep.tgz sweep
for f in $W/*.csv; do echo "$f $(grep -c 'F (' $f) failing of $(($(wc -l <$f)-1))"; done
