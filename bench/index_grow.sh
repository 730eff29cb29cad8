#!/bin/sh
# Benchmark of an index extended when its trace was appended to
# (doc/index-format.md, "Ready to grow"): a CoreProfiler log and a CTF
# directory from the project's writers of about INDEX_GROW_BYTES each
# (default 400 MB), and an FXT file of INDEX_GROW_FXT_BYTES (default
# 200 MB: read on two threads, as a whole load does from 32 MiB),
# indexed when 90 % was written,
# then the last 10 % appended (each CTF stream file and its packet index
# grown by its own packets). In the same run, warm page cache:
#  - the open after the append (`--stats`: the index extended, only the
#    appended data read) against `--no-index --stats` of the whole trace
#    and against the index rebuilt (the whole trace read and its index
#    written, what an open did before), wall time, CPU time and peak RSS;
#  - the first open at 90 % (the read that keeps the state) against
#    `--no-index --stats` at 90 %;
#  - that the extended index gives the statistics --no-index does;
#  - --follow's first read from the index's state against a whole one.
# The CTF directory is measured twice: read in memory (decoding threads,
# calls kept apart per stream), and as when memory is short for its
# model (TTV_INDEX_STORE=1: a read that goes on, calls walked).
# Medians of INDEX_GROW_RUNS runs (default 3); INDEX_GROW_FORMATS picks
# (default "coreprofiler fxt ctf").
#
#   cd build && TTV=./ttv CPGEN=./tests/gen/cpgen FXTGEN=./tests/gen/fxtgen \
#       CTFGEN=./tests/gen/ctfgen sh ../bench/index_grow.sh
set -u
TTV=${TTV:-./ttv}
CPGEN=${CPGEN:-./tests/gen/cpgen}
FXTGEN=${FXTGEN:-./tests/gen/fxtgen}
CTFGEN=${CTFGEN:-./tests/gen/ctfgen}
RUNS=${INDEX_GROW_RUNS:-3}
FORMATS=${INDEX_GROW_FORMATS:-coreprofiler fxt ctf}
wants() { case " $FORMATS " in *" $1 "*) return 0 ;; esac; return 1; }
BYTES=${INDEX_GROW_BYTES:-400000000}
FXT_BYTES=${INDEX_GROW_FXT_BYTES:-200000000}
for x in "$TTV" "$CPGEN" "$FXTGEN" "$CTFGEN" /usr/bin/time; do
	if [ ! -x "$x" ]; then
		echo "bench/index_grow.sh: $x not found" >&2
		exit 1
	fi
done
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
dir=$(mktemp -d "${INDEX_GROW_DIR:-/tmp}/ttv-bench-grow.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
XDG_CACHE_HOME=$dir/cache
export XDG_CACHE_HOME
unset TTV_NO_INDEX TTV_CACHE_MAX

run() {
	out=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$dir/m" "$@" >"$out" 2>"$dir/err"
}
# "wall cpu rss" of the last run
last() { awk '{ printf "%s %.2f %d\n", $1, $3 + $4, $2 }' "$dir/m"; }
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
col() { cut -d' ' -f"$1" "$2" | median; }

# cut.py TRACE KIND: the trace cut at 90 % of it, at a record's end: for
# a file, its size then; for a CTF directory, each file's ("FILE SIZE"
# lines). Writes TRACE.cut (sizes) and prints nothing.
cat >"$dir/cut.py" <<'EOF'
import os, struct, sys
trace, kind = sys.argv[1], sys.argv[2]
out = open(trace + '.cut', 'w')
if kind == 'coreprofiler':
    size = os.path.getsize(trace)
    with open(trace, 'rb') as f:
        f.seek(size * 9 // 10)
        f.readline()
        out.write('%s %d\n' % (trace, f.tell()))
elif kind == 'fxt':
    d = open(trace, 'rb').read()
    want, o = len(d) * 9 // 10, 0
    while o < want:
        w = (struct.unpack_from('<Q', d, o)[0] >> 4) & 0xfff
        o += w * 8
    out.write('%s %d\n' % (trace, o))
else:
    # packets (ctfgen -L: stream, offset, length), in the order written
    pk = [l.split() for l in open(trace + '.packets')]
    keep = len(pk) * 9 // 10
    first, count = {}, {}
    for i, (ch, off, ln, ev) in enumerate(pk):
        count.setdefault(ch, 0)
        if i >= keep:
            first.setdefault(ch, int(off))
        else:
            count[ch] += 1
    for ch in count:
        path = os.path.join(trace, ch)
        idx = os.path.join(trace, 'index', ch + '.idx')
        n = sum(1 for p in pk if p[0] == ch)
        es = (os.path.getsize(idx) - 16) // n
        out.write('%s %d\n' % (path, first.get(ch, os.path.getsize(path))))
        out.write('%s %d\n' % (idx, 16 + count[ch] * es))
EOF

# first_read.py TTV OPTION TRACE: seconds until `ttv --follow` has read
# TRACE as it is (its first round's "rows examined" on stderr,
# TTV_FOLLOW_STATS), then stops it; and its stderr's first line.
cat >"$dir/first_read.py" <<'EOF'
import os, signal, subprocess, sys, time
ttv, opt, trace = sys.argv[1:4]
env = dict(os.environ, TTV_FOLLOW_STATS='1')
err = open(os.path.join(os.path.dirname(trace), 'follow.err'), 'w+')
t0 = time.monotonic()
p = subprocess.Popen([ttv, opt, '--follow', '--search', 'x^', trace],
                     stdout=subprocess.DEVNULL, stderr=err, env=env)
secs = None
while time.monotonic() - t0 < 600:
    err.seek(0)
    text = err.read()
    if 'rows examined' in text:
        secs = time.monotonic() - t0
        break
    if p.poll() is not None:
        break
    time.sleep(0.005)
p.send_signal(signal.SIGINT)
p.wait()
err.seek(0)
print('%s %s' % ('%.2f' % secs if secs is not None else 'none',
                 err.readline().strip()))
EOF

# prefix TRACE: the files of TRACE.cut cut short; append TRACE: the rest
# appended, from the whole copies (FILE.whole; a CTF directory's files
# in TRACE.full).
prefix() {
	while read -r f size; do
		truncate -s "$size" "$f"
	done <"$1.cut"
}
append() {
	while read -r f size; do
		if [ -d "$1" ]; then
			src=$1.full/${f#"$1"/}
		else
			src=$f.whole
		fi
		tail -c +$((size + 1)) "$src" >>"$f"
	done <"$1.cut"
}

bench_trace() {
	label=$1 trace=$2
	bytes=$(du -cb "$trace" | tail -n 1 | cut -f1)
	echo "== $label: $bytes bytes, 90 % indexed, 10 % appended"
	: >"$dir/no"; : >"$dir/ext"; : >"$dir/reb"; : >"$dir/first"
	: >"$dir/no90"; : >"$dir/fidx"; : >"$dir/fno"
	for _ in $(seq "$RUNS"); do
		run "$dir/no.out" "$TTV" --no-index --stats "$trace" &&
		    last >>"$dir/no"
		rm -rf "$XDG_CACHE_HOME"
		run "$dir/reb.out" "$TTV" --index --stats "$trace" &&
		    last >>"$dir/reb"
		prefix "$trace"
		run "$dir/no90.out" "$TTV" --no-index --stats "$trace" &&
		    last >>"$dir/no90"
		rm -rf "$XDG_CACHE_HOME"
		run "$dir/first.out" "$TTV" --index --stats "$trace" &&
		    last >>"$dir/first"
		append "$trace"
		run "$dir/ext.out" "$TTV" --index --stats "$trace" &&
		    last >>"$dir/ext"
		grep -q "index extended" "$dir/err" ||
		    echo "  NOT EXTENDED: $(cat "$dir/err")"
		cmp -s "$dir/no.out" "$dir/ext.out" ||
		    echo "  DIFFERENT --stats from the extended index"
		# --follow's first read: from the index's state (the trace
		# as it was extended: nothing left to read) or whole
		python3 "$dir/first_read.py" "$TTV" --index "$trace" >"$dir/f1"
		grep -q "read on from the state" "$dir/f1" ||
		    echo "  --follow NOT FROM THE INDEX: $(cat "$dir/f1")"
		cut -d' ' -f1 "$dir/f1" >>"$dir/fidx"
		python3 "$dir/first_read.py" "$TTV" --no-index "$trace" |
		    cut -d' ' -f1 >>"$dir/fno"
	done
	fidx=$(median <"$dir/fidx") fno=$(median <"$dir/fno")
	ratio=$(awk -v a="$fno" -v b="$fidx" 'BEGIN {
	    printf "%.1f", (b > 0 ? a / b : 0) }')
	echo "  --follow, first read done: ${fidx}s from the index's" \
	    "state, ${fno}s whole (${ratio} x)"
	awk -v nw="$(col 1 "$dir/no")" -v nc="$(col 2 "$dir/no")" \
	    -v nr="$(col 3 "$dir/no")" \
	    -v ew="$(col 1 "$dir/ext")" -v ec="$(col 2 "$dir/ext")" \
	    -v er="$(col 3 "$dir/ext")" \
	    -v rw="$(col 1 "$dir/reb")" -v rc="$(col 2 "$dir/reb")" \
	    -v rr="$(col 3 "$dir/reb")" \
	    -v fw="$(col 1 "$dir/first")" -v fc="$(col 2 "$dir/first")" \
	    -v fr="$(col 3 "$dir/first")" \
	    -v n9w="$(col 1 "$dir/no90")" -v n9c="$(col 2 "$dir/no90")" \
	    -v n9r="$(col 3 "$dir/no90")" 'BEGIN {
		printf "  %-34s %7s %7s %9s\n", "", "wall", "cpu", "peak RSS"
		printf "  %-34s %6.2fs %6.2fs %7.0f MB\n",
		    "--no-index --stats, whole", nw, nc, nr / 1024
		printf "  %-34s %6.2fs %6.2fs %7.0f MB\n",
		    "index rebuilt, whole", rw, rc, rr / 1024
		printf "  %-34s %6.2fs %6.2fs %7.0f MB\n",
		    "index extended (10 % appended)", ew, ec, er / 1024
		printf "  extended: %.1f x faster than --no-index, %.1f x than " \
		    "a rebuild (wall)\n", nw / ew, rw / ew
		printf "  %-34s %6.2fs %6.2fs %7.0f MB\n",
		    "--no-index --stats, 90 %", n9w, n9c, n9r / 1024
		printf "  %-34s %6.2fs %6.2fs %7.0f MB\n",
		    "first open with the index, 90 %", fw, fc, fr / 1024
		printf "  first open: %.2f x --no-index (wall)\n", fw / n9w
	}'
}

# CoreProfiler: instrumentation mode, 4 threads
if wants coreprofiler; then
"$CPGEN" --seed 1 --lines $((BYTES / 45)) --threads 4 \
    --mode instrumentation --out "$dir/cp.log" --summary none >/dev/null ||
    exit 1
cp "$dir/cp.log" "$dir/cp.log.whole"
python3 "$dir/cut.py" "$dir/cp.log" coreprofiler
bench_trace "CoreProfiler log" "$dir/cp.log"
rm -rf "$dir/cp.log"*
fi

if wants fxt; then
"$FXTGEN" -B "$FXT_BYTES" "$dir/f.fxt" >/dev/null || exit 1
cp "$dir/f.fxt" "$dir/f.fxt.whole"
python3 "$dir/cut.py" "$dir/f.fxt" fxt
bench_trace "FXT file" "$dir/f.fxt"
rm -rf "$dir/f.fxt"*
fi

# CTF: 8 threads, 1 MiB packets, with packet indexes; read in memory,
# then built into its index's file as when memory is short for the model
# (TTV_INDEX_STORE)
if wants ctf; then
"$CTFGEN" -i -n $((BYTES / 24)) -t 8 -S 0 -P 1048576 -s 3 \
    -L "$dir/ctf.packets" "$dir/ctf" >/dev/null || exit 1
cp -r "$dir/ctf" "$dir/ctf.full"
python3 "$dir/cut.py" "$dir/ctf" ctf
bench_trace "CTF directory, in memory" "$dir/ctf"
export TTV_INDEX_STORE=1
bench_trace "CTF directory, memory short (TTV_INDEX_STORE=1)" "$dir/ctf"
unset TTV_INDEX_STORE
fi
