export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cp partial/* $OUT/
SECONDS=0
timeout 75 python3 /tmp/p.py run ../../litmus/oopsla21 --backend cuda --scope lane --resume -o $OUT/lanes_sm90.csv 2>&1 | tail -2
echo "sm_90 build, resumed again: $SECONDS s"
