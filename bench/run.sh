#!/usr/bin/env bash
# Tessera benchmark suite: the programs of bench/programs/ under the JIT (one
# thread and all cores) and the interpreter, side by side with the same
# programs written in plain C (bench/c/) and the peer harness (plain C and
# PoCL, ../shared/peers), as one Markdown table.
#
#   bash bench/run.sh                 full sizes, REPS=5, peers included
#   QUICK=1 bash bench/run.sh         smaller sizes and fewer repetitions
#
# Options (environment):
#   REPS=5          timed runs per row; the median is reported (QUICK: 2)
#   QUICK=1         tile_average at N=1024, matmul_1024 left out (the peer's
#                   --quick sizes), smaller interpreter sizes, peers with RUNS=1
#                   and short waits for an idle machine
#   SKIP_INTERP=1   do not run the interpreter
#   SKIP_BUILD=1    do not run cargo; use $TESSERA or target/release/tessera
#   TESSERA=path    the binary to measure (default target/release/tessera)
#   ONLY=a,b        run only these benchmarks (names as in the table)
#   PEERS=0         do not run the peers (their columns show "–")
#   PEER_RESULTS=d  do not run the peers; read an earlier results folder of
#                   theirs (d, or "latest" for the newest under BENCH_DIR)
#   PEER_RUNS=1     complete peer runs (their RUNS; the median is used)
#   PEER_REPS=7     the peers' minimum repetitions per row (their REPS)
#   PEERS_SRC=dir   the peer harness (default ../shared/peers, read-only)
#   BENCH_DIR=dir   scratch space: program variants, outputs, the peers' copy
#                   (default ${TMPDIR:-/tmp}/tessera-bench)
#   TIMEOUT=900     seconds before one tessera run (or C program) is stopped
#   C_HOST=0        do not build and run the C programs of bench/c/ (their
#                   columns show "–")
#   CC=gcc          the compiler for bench/c/ (flags -O2, as the peers' C -O2)
#   CODE_CACHE=1    each configuration's REPS runs share a code cache that
#                   starts empty: the first run compiles (cold), the others
#                   take the kept code, as PoCL's kernel cache does for the
#                   peers; CODE_CACHE=0: every run compiles
#
# Every timed figure of Tessera is the whole-process wall time of one
# `tessera run` (start-up, parsing, checking, compiling, host code, every
# kernel, output), measured with `date +%s%N` around the process; the peers
# time only their kernel launch (clEnqueueNDRangeKernel + clFinish, or the C
# function call). `tessera run --stats` gives each launch's time
# (launch_ms): the kernel under test is each program's first tiled launch,
# and the ratios use its time, comparable with the peers' kernel times.
#
# The C programs of bench/c/ do what each .amp program does as a whole
# (allocation, filling the inputs, the benchmark kernel as the peers' C
# loops, the checks, the output), built with gcc -O2 for the same N and K.
# Each prints `c-stats kernel_ms=X` (its benchmark kernel alone) to stderr;
# the C host time of a run is its whole-process wall time minus kernel_ms,
# and "JIT1 whole / (k + C host)" divides Tessera's 1-thread whole-process
# time by its own kernel time plus that C host time (target: 1.3 at most).
# Their stdout is compared with tessera's; a difference is listed in Notes.
#
# Barrier cost, in ns per work-item per barrier, from the two barrier
# micro-benchmarks, each run at K = 256 and at K = 0 (as the peers do):
#     cost = (t(K=256) - t(K=0)) * 1e6 / (N * B)
# with t the median time in ms, N the number of work-items of the run
# (65536 at full size) and B the barriers per work-item at K = 256 (256 for
# barrier_plain, 512 for barrier_xchg). Everything that does not depend on K
# (start-up, output, the checks) cancels in the difference. With several
# threads it is wall time, so already shared between the cores.
#
# The table goes to stdout and to bench/results/<timestamp>.md; progress
# goes to stderr; raw timings stay in $BENCH_DIR/<timestamp>/.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then REPS=${REPS:-2}; else REPS=${REPS:-5}; fi
SKIP_INTERP=${SKIP_INTERP:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
TESSERA=${TESSERA:-$ROOT/target/release/tessera}
ONLY=${ONLY:-}
PEERS=${PEERS:-1}
PEER_RESULTS=${PEER_RESULTS:-}
PEER_RUNS=${PEER_RUNS:-1}
PEER_REPS=${PEER_REPS:-7}
PEERS_SRC=${PEERS_SRC:-$ROOT/../shared/peers}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/tessera-bench}
TIMEOUT=${TIMEOUT:-900}
C_HOST=${C_HOST:-1}
CC=${CC:-gcc}
NPROC=$(nproc)

STAMP=$(date +%Y%m%d-%H%M%S)
RUN_DIR=$BENCH_DIR/$STAMP
mkdir -p "$RUN_DIR/programs" "$RUN_DIR/out" "$RUN_DIR/c" "$HERE/results"
RAW=$RUN_DIR/tessera.tsv
: > "$RAW"

say() { echo "# $*" >&2; }

# ---------------------------------------------------------------- 1. build
if [ "$SKIP_BUILD" != 1 ]; then
    say "building tessera (release)"
    if ! (cd "$ROOT" && cargo build --release -p tessera-cli >"$RUN_DIR/build.log" 2>&1); then
        if [ -x "$TESSERA" ]; then
            say "warning: the build failed (see $RUN_DIR/build.log); measuring the existing $TESSERA"
        else
            cat "$RUN_DIR/build.log" >&2
            exit 1
        fi
    fi
fi
[ -x "$TESSERA" ] || { echo "no tessera binary at $TESSERA" >&2; exit 1; }
# Measure a private copy, so that a rebuild of target/ during the run cannot
# mix two binaries in one table.
cp "$TESSERA" "$RUN_DIR/tessera"
TESSERA_SRC=$TESSERA
TESSERA=$RUN_DIR/tessera
COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(cd "$ROOT" && git status --porcelain --untracked-files=no -- crates Cargo.toml Cargo.lock 2>/dev/null)" ]; then
    COMMIT="$COMMIT (with uncommitted changes in crates/)"
fi

STATS=()
if "$TESSERA" run --help 2>&1 | grep -q -- '--stats'; then
    STATS=(--stats)
else
    say "this tessera has no --stats: kernel and compile times are left empty"
fi

# ------------------------------------------------------- 2. the benchmarks
# name | program | N | N with QUICK=1 ("-": left out) | N for the
# interpreter | same with QUICK=1. The barrier programs also run at K = 0.
BENCHES=(
    "tile_average|tile_average.amp|4096|1024|1024|256"
    "matmul_512|matmul_512.amp|512|512|128|64"
    "matmul_1024|matmul_1024.amp|1024|-|256|-"
    "reduction|reduction.amp|16777216|16777216|1048576|65536"
    "transpose_2048|transpose_2048.amp|2048|2048|512|256"
    "barrier_plain|barrier_plain.amp|65536|65536|4096|1024"
    "barrier_xchg|barrier_xchg.amp|65536|65536|4096|1024"
)
K_BIG=256
K_SMALL=0

# variant FILE N K OUT: a copy of FILE with `#define N` (and `#define K`)
# replaced.
variant() {
    local src=$1 n=$2 k=$3 out=$4
    sed -e "s/^#define N [0-9]*\$/#define N $n/" -e "s/^#define K [0-9]*\$/#define K $k/" "$src" > "$out"
    grep -q "^#define N $n\$" "$out" || { echo "cannot set N in $src" >&2; exit 1; }
    if grep -q '^#define K ' "$src"; then
        grep -q "^#define K $k\$" "$out" || { echo "cannot set K in $src" >&2; exit 1; }
    fi
}

# measure BENCH LABEL N K FILE ENGINE-ARGS...: REPS timed runs; one raw line
# per run: bench, label, N, K, rep, wall ms, status, stats line. Stops at the
# first run that fails. status: ok, error:<exit> (first stderr line in the
# notes), timeout, wrong (no "check: ok" line), differs (stdout not the
# same as the first run of this program under another engine).
measure() {
    local bench=$1 label=$2 n=$3 k=$4 file=$5
    shift 5
    local key ref out err rc t0 t1 status stats r cache_dir=
    key=$(basename "$file" .amp)
    if [ "${CODE_CACHE:-1}" != 0 ]; then
        cache_dir=$RUN_DIR/code-cache/$key.$label
        rm -rf "$cache_dir"
    fi
    ref=$RUN_DIR/out/$key.ref
    out=$RUN_DIR/out/$key.$label.out
    err=$RUN_DIR/out/$key.$label.err
    for ((r = 1; r <= REPS; r++)); do
        rc=0
        t0=$(date +%s%N)
        TESSERA_CACHE_DIR=$cache_dir timeout "$TIMEOUT" "$TESSERA" run "$@" \
            ${STATS[@]+"${STATS[@]}"} "$file" >"$out" 2>"$err" || rc=$?
        t1=$(date +%s%N)
        if [ "$rc" = 124 ]; then
            status=timeout
        elif [ "$rc" != 0 ]; then
            status=error:$rc
            printf '%s\t%s\t%s\n' "$bench" "$label" "$(grep -v '^tessera-stats ' "$err" | head -1)" >> "$RUN_DIR/notes.tsv"
        elif ! grep -q '^check: ok' "$out"; then
            status=wrong
            printf '%s\t%s\t%s\n' "$bench" "$label" \
                "N=$n: $(grep -m1 '^check:' "$out" || echo 'no check line')" >> "$RUN_DIR/notes.tsv"
        elif [ -f "$ref" ] && ! cmp -s "$ref" "$out"; then
            status=differs
        else
            status=ok
            [ -f "$ref" ] || cp "$out" "$ref"
        fi
        stats=$(grep -m1 '^tessera-stats ' "$err" || true)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bench" "$label" "$n" "$k" "$r" \
            "$(( (t1 - t0) / 1000000 )).$(printf '%03d' $(( (t1 - t0) / 1000 % 1000 )))" \
            "$status" "$stats" >> "$RAW"
        if [ "$status" != ok ]; then
            say "  $bench $label: $status"
            break
        fi
    done
    if [ "$status" = ok ]; then
        say "  $bench $label: $(awk -F'\t' -v b="$bench" -v l="$label" -v k="$k" \
            '$1==b && $2==l && $4==k {printf "%s ", $6}' "$RAW")ms"
    fi
}

# c_program BENCH: the C program of bench/c/ for a benchmark.
c_program() {
    case $1 in
        matmul_*) echo matmul ;;
        transpose_*) echo transpose ;;
        *) echo "$1" ;;
    esac
}

# measure_c BENCH N K KEY: builds bench/c/<program>.c with -DN and -DK into
# $RUN_DIR/c/KEY and makes REPS timed runs; raw lines as measure's, label
# "c", the stats field being the program's `c-stats kernel_ms=X` line. Its
# stdout is compared with the first tessera output of the same variant
# (KEY); a difference goes to the notes, the timings stay.
measure_c() {
    local bench=$1 n=$2 k=$3 key=$4
    local src bin ref out err rc t0 t1 status stats r tline cline
    src=$HERE/c/$(c_program "$bench").c
    bin=$RUN_DIR/c/$key
    ref=$RUN_DIR/out/$key.ref
    out=$RUN_DIR/out/$key.c.out
    err=$RUN_DIR/out/$key.c.err
    if [ ! -f "$src" ]; then
        say "  $bench c: no $src"
        return 0
    fi
    if ! "$CC" -O2 -std=gnu11 -Wall -DN="$n" -DK="${k/-/0}" "$src" -o "$bin" -lm \
            >"$RUN_DIR/c/$key.build.log" 2>&1; then
        say "  $bench c: the build failed (see $RUN_DIR/c/$key.build.log)"
        printf '%s\t%s\t%s\n' "$bench" c "build failed: $(head -1 "$RUN_DIR/c/$key.build.log")" >> "$RUN_DIR/notes.tsv"
        return 0
    fi
    for ((r = 1; r <= REPS; r++)); do
        rc=0
        t0=$(date +%s%N)
        timeout "$TIMEOUT" "$bin" >"$out" 2>"$err" || rc=$?
        t1=$(date +%s%N)
        if [ "$rc" = 124 ]; then
            status=timeout
        elif [ "$rc" != 0 ]; then
            status=error:$rc
            printf '%s\t%s\t%s\n' "$bench" c "exit $rc: $(grep -v '^c-stats ' "$err" | head -1)" >> "$RUN_DIR/notes.tsv"
        elif ! grep -q '^check: ok' "$out"; then
            status=wrong
            printf '%s\t%s\t%s\n' "$bench" c \
                "N=$n: $(grep -m1 '^check:' "$out" || echo 'no check line')" >> "$RUN_DIR/notes.tsv"
        else
            status=ok
            if [ "$r" = 1 ]; then
                if [ ! -f "$ref" ]; then
                    printf '%s\t%s\t%s\n' "$bench" c "$key: no tessera output to compare the C program's with" >> "$RUN_DIR/notes.tsv"
                elif ! cmp -s "$ref" "$out"; then
                    tline=$({ diff "$ref" "$out" || true; } | grep -m1 '^<' || true)
                    cline=$({ diff "$ref" "$out" || true; } | grep -m1 '^>' || true)
                    printf '%s\t%s\t%s\n' "$bench" c "$key: the C program's stdout differs from tessera's; first differing line: tessera '${tline#< }', C '${cline#> }'" >> "$RUN_DIR/notes.tsv"
                    cp "$out" "$RUN_DIR/out/$key.c.differs"
                fi
            fi
        fi
        stats=$(grep -m1 '^c-stats ' "$err" || true)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bench" c "$n" "$k" "$r" \
            "$(( (t1 - t0) / 1000000 )).$(printf '%03d' $(( (t1 - t0) / 1000 % 1000 )))" \
            "$status" "$stats" >> "$RAW"
        if [ "$status" != ok ]; then
            say "  $bench c: $status"
            return 0
        fi
    done
    say "  $bench c: $(awk -F'\t' -v b="$bench" -v k="$k" \
        '$1==b && $2=="c" && $4==k {printf "%s ", $6}' "$RAW")ms"
}

if [ "$C_HOST" != 0 ] && ! command -v "$CC" >/dev/null 2>&1; then
    say "warning: no $CC; the C programs are left out"
    C_HOST=0
fi

# the jit_n row also answers the 2-thread speedup when the machine has 2
# cores; otherwise the speedup benchmark runs once more with --threads 2.
SPEEDUP_BENCH=matmul_1024
[ "$QUICK" = 1 ] && SPEEDUP_BENCH=matmul_512

wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
say "measuring $TESSERA_SRC (copied to $TESSERA), REPS=$REPS, QUICK=$QUICK, $NPROC cores, load $LOAD_START"
for spec in "${BENCHES[@]}"; do
    IFS='|' read -r name prog n_full n_quick n_interp n_interp_quick <<< "$spec"
    wanted "$name" || continue
    if [ "$QUICK" = 1 ]; then n=$n_quick; ni=$n_interp_quick; else n=$n_full; ni=$n_interp; fi
    [ "$n" = - ] && continue
    src=$HERE/programs/$prog
    ks=(-)
    grep -q '^#define K ' "$src" && ks=("$K_BIG" "$K_SMALL")
    for k in "${ks[@]}"; do
        kk=${k/-/0}
        tag=$name; [ "$k" != - ] && tag=$name-K$k
        f=$RUN_DIR/programs/$tag-N$n.amp
        variant "$src" "$n" "$kk" "$f"
        say "$tag N=$n"
        measure "$name" jit_1 "$n" "$k" "$f" --engine jit --threads 1
        measure "$name" jit_n "$n" "$k" "$f" --engine jit
        if [ "$C_HOST" != 0 ]; then
            measure_c "$name" "$n" "$k" "$tag-N$n"
        fi
        if [ "$name" = "$SPEEDUP_BENCH" ] && [ "$NPROC" != 2 ]; then
            measure "$name" jit_2 "$n" "$k" "$f" --engine jit --threads 2
        fi
        if [ "$SKIP_INTERP" != 1 ] && [ "$ni" != - ]; then
            fi_=$RUN_DIR/programs/$tag-N$ni.amp
            variant "$src" "$ni" "$kk" "$fi_"
            measure "$name" interp "$ni" "$k" "$fi_" --engine interp
            measure "$name" jit_1_small "$ni" "$k" "$fi_" --engine jit --threads 1
        fi
    done
done

# ------------------------------------------------------------- 3. peers
PEER_OUT=
if [ -n "$PEER_RESULTS" ]; then
    if [ "$PEER_RESULTS" = latest ]; then
        PEER_OUT=$(ls -dt "$BENCH_DIR"/peers/results/*/ 2>/dev/null | head -1 || true)
        PEER_OUT=${PEER_OUT%/}
    else
        PEER_OUT=$PEER_RESULTS
    fi
    [ -n "$PEER_OUT" ] && [ -d "$PEER_OUT" ] || { say "no peer results at '$PEER_RESULTS'"; PEER_OUT=; }
elif [ "$PEERS" != 0 ]; then
    if [ -d "$PEERS_SRC" ]; then
        say "peers: copying $PEERS_SRC to $BENCH_DIR/peers and running its run.sh (log: $RUN_DIR/peers.log)"
        mkdir -p "$BENCH_DIR/peers"
        cp -r "$PEERS_SRC"/. "$BENCH_DIR/peers/"
        chmod -R u+w "$BENCH_DIR/peers"
        suffix=full; [ "$QUICK" = 1 ] && suffix=quick
        PEER_OUT=$BENCH_DIR/peers/results/$STAMP-$suffix
        peer_env=(RUNS="$PEER_RUNS" REPS="$PEER_REPS" OUT="$PEER_OUT")
        if [ "$QUICK" = 1 ]; then
            peer_env+=(QUICK=1 QUIET_WAIT="${QUIET_WAIT:-10}" QUIET_MAX_S="${QUIET_MAX_S:-2}"
                       WAIT_BUDGET_S="${WAIT_BUDGET_S:-30}")
        fi
        if ! env "${peer_env[@]}" bash "$BENCH_DIR/peers/run.sh" > "$RUN_DIR/peers.log" 2>&1; then
            say "warning: the peers' run.sh failed; see $RUN_DIR/peers.log"
            tail -5 "$RUN_DIR/peers.log" >&2 || true
            ls "$PEER_OUT"/run*/*.tsv >/dev/null 2>&1 || PEER_OUT=
        fi
    else
        say "no peer harness at $PEERS_SRC"
    fi
fi

# ------------------------------------------------------------- 4. report
REPORT=$HERE/results/$STAMP.md
export CODE_CACHE=${CODE_CACHE:-1}
export RAW PEER_OUT NPROC REPS QUICK COMMIT SPEEDUP_BENCH K_BIG K_SMALL STAMP C_HOST
export CC_VERSION=$({ "$CC" --version 2>/dev/null || true; } | head -1)
export NOTES=$RUN_DIR/notes.tsv
export CPU_MODEL=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
export LOAD_START
export LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
export HAVE_STATS=${#STATS[@]}

python3 - > "$REPORT" <<'PY'
import os, statistics
from pathlib import Path

env = os.environ
NPROC = int(env["NPROC"])
K_BIG, K_SMALL = int(env["K_BIG"]), int(env["K_SMALL"])
DASH = "–"

# ---- tessera: bench, label, N, K, rep, wall ms, status, stats line
runs = {}
for line in Path(env["RAW"]).read_text().splitlines():
    b, label, n, k, rep, wall, status, stats = (line.split("\t") + [""] * 8)[:8]
    st = {}
    for tok in stats.split()[1:]:
        if "=" in tok:
            key, val = tok.split("=", 1)
            if key == "launch_ms":
                # The kernel under test is each program's first tiled launch
                # (`t` marks tiled launches); the others fill inputs or check.
                tiled = [v[:-1] for v in val.split(";") if v.endswith("t")]
                if tiled:
                    st["bench_ms"] = float(tiled[0])
                continue
            try:
                st[key] = float(val)
            except ValueError:
                pass
    if st.get("launches") == 0:
        # the interpreter runs kernels inline and counts them as host time
        st.pop("kernel_ms", None)
        st.pop("compile_ms", None)
    r = runs.setdefault((b, label, k), {"n": int(n), "wall": [], "stats": [], "status": "ok"})
    if status == "ok":
        r["wall"].append(float(wall))
        r["stats"].append(st)
    else:
        r["status"] = status

notes = {}
if Path(env["NOTES"]).exists():
    for line in Path(env["NOTES"]).read_text().splitlines():
        b, label, msg = (line.split("\t") + ["", "", ""])[:3]
        notes.setdefault(msg.strip(), set()).add(f"{b} {label}")


def get(b, label, k="-"):
    return runs.get((b, label, str(k)))


def med(r, field=None):
    """Median wall ms, or median of a --stats field; None if unavailable."""
    if r is None or r["status"] != "ok" or not r["wall"]:
        return None
    if field is None:
        return statistics.median(r["wall"])
    vals = [s[field] for s in r["stats"] if field in s]
    return statistics.median(vals) if vals else None


def fmt(x, digits=3):
    if x is None:
        return DASH
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def cell(r, with_kernel=True):
    if r is None:
        return DASH
    if r["status"] != "ok":
        return {"wrong": "WRONG", "differs": "DIFFERS", "timeout": "timeout"}.get(
            r["status"], "n/a")
    w = med(r)
    k = med(r, "bench_ms")
    if k is None:
        k = med(r, "kernel_ms")
    if with_kernel and k is not None:
        return f"{fmt(w)} (k {fmt(k)})"
    return fmt(w)


def best(r):
    """The kernel under test's time when --stats gave it (else all
    kernels' time, else wall time)."""
    k = med(r, "bench_ms")
    if k is None:
        k = med(r, "kernel_ms")
    return k if k is not None else med(r)


def kernel(r):
    """The kernel under test's median time from --stats (bench_ms, else
    kernel_ms); None without it."""
    k = med(r, "bench_ms")
    return k if k is not None else med(r, "kernel_ms")


def c_host(r):
    """Median over the runs of a C program of wall time - kernel_ms."""
    if r is None or r["status"] != "ok":
        return None
    vals = [w - s["kernel_ms"] for w, s in zip(r["wall"], r["stats"])
            if "kernel_ms" in s]
    return statistics.median(vals) if vals else None


def c_cell(r):
    if r is None:
        return DASH
    if r["status"] != "ok":
        return {"wrong": "WRONG", "timeout": "timeout"}.get(r["status"], "n/a")
    h = c_host(r)
    return fmt(med(r)) + ("" if h is None else f" (host {fmt(h)})")


def ratio(a, b):
    if a is None or b is None or b == 0:
        return DASH
    x = a / b
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"

# ---- peers: R bench cfg impl threads median_ms min_ms metric unit err status bg
peer = {}
peer_comp = []
pdir = env.get("PEER_OUT") or ""
if pdir and Path(pdir).is_dir():
    acc = {}
    for f in sorted(Path(pdir).glob("run*/*.tsv")):
        if f.stem not in ("native", "pocl-basic", "pocl-pthread"):
            continue
        for line in f.read_text().splitlines():
            p = line.split("\t")
            if p[0] == "R" and len(p) >= 12:
                acc.setdefault((p[1], p[2], p[3]), []).append(
                    (float(p[5]), int(p[4]), p[10]))
            elif p[0] == "C" and len(p) >= 7:
                peer_comp.append(dict(bench=p[1], cfg=p[2], impl=p[3],
                                      build=float(p[4]), first=float(p[5]),
                                      med=float(p[6])))
    for key, v in acc.items():
        peer[key] = dict(ms=statistics.median(x[0] for x in v), threads=v[0][1],
                         ok=all(x[2] == "ok" for x in v))


def pms(bench, cfg, impl):
    r = peer.get((bench, cfg, impl))
    return None if r is None or not r["ok"] else r["ms"]


def pcell(bench, cfg, impl):
    r = peer.get((bench, cfg, impl))
    if r is None:
        return DASH
    return fmt(r["ms"]) + ("" if r["ok"] else " MISMATCH")


def pocl_compile(bench, local, impl="PoCL-pthread"):
    """clBuildProgram ms + first-launch JIT ms (first launch - steady) of the
    first row of this kernel and local size; the barrier kernels share one
    program, whose build is listed under barrier_plain."""
    rows = [c for c in peer_comp if c["impl"] == impl and c["bench"] == bench
            and local in c["cfg"]]
    if not rows:
        return None
    c = rows[0]
    build = c["build"]
    if build == 0 and bench == "barrier_xchg":
        other = [x for x in peer_comp if x["impl"] == impl and
                 x["bench"] == "barrier_plain" and local in x["cfg"]]
        build = other[0]["build"] if other else 0
    return build + max(c["first"] - c["med"], 0.0)


# peer row of each benchmark: (bench, cfg for K_BIG, cfg for K_SMALL, local key)
def peer_key(b, n):
    if b == "tile_average":
        return ("tile_avg", f"N={n} S=16", "S=16")
    if b.startswith("matmul"):
        return ("matmul", f"N={n} T=16", "T=16")
    if b == "reduction":
        return ("reduce", "n=2^24 T=256", "T=256") if n == 1 << 24 else None
    if b.startswith("transpose"):
        return ("transpose", f"N={n} T=16", "T=16")
    return None


def barrier_cfg(b, k):
    nb = k * (2 if b == "barrier_xchg" else 1)
    return f"WG=256 K={k} barriers={nb}"


ORDER = ["tile_average", "matmul_512", "matmul_1024", "reduction",
         "transpose_2048", "barrier_plain", "barrier_xchg"]

out = []
w = out.append
quick = env["QUICK"] == "1"
code_cache = env.get("CODE_CACHE", "1") != "0"
w(f"# Tessera benchmarks {env['STAMP']}\n")
w(f"- tessera commit {env['COMMIT']}; {env['CPU_MODEL']}, {NPROC} cores; "
  f"load average {env['LOAD_START']} at the start, {env['LOAD_END']} at the end")
w(f"- REPS={env['REPS']}{' QUICK=1' if quick else ''}: every Tessera cell is the "
  "median of REPS whole-process wall times of `tessera run`, in ms; "
  "`(k x)` is the median time of the kernel under test (the program's first "
  "tiled launch, from `--stats` launch_ms; the other launches fill inputs or "
  "check results)")
if env["C_HOST"] != "0":
    w(f"- C programs (bench/c/): `gcc -O2`, {env.get('CC_VERSION') or 'unknown compiler'}; "
      "median whole-process wall time of REPS runs, `(host h)` the median of "
      "wall time minus the program's own kernel time")
else:
    w("- C programs: not run (C_HOST=0)")
w(f"- peers: {pdir} (kernel-only times, median of their medians over their "
  "runs)\n" if pdir else "- peers: not run\n")

hdr = ["benchmark", "size", "JIT 1T ms", f"JIT {NPROC}T ms", "interp ms (size)",
       "C -O2 1T ms", "C -O3 native 1T ms", "PoCL basic 1T ms", "PoCL pthread ms",
       "JIT1 / C", "JIT1 / C -O3 native", "JIT1 / PoCL basic", "JIT / PoCL pthread",
       "compile ms", "host ms", "C whole ms (host)", "JIT1 whole / (k + C host)",
       "PoCL build+JIT ms"]
w("| " + " | ".join(hdr) + " |")
w("|" + "---|" * len(hdr))
any_stats = False
for b in ORDER:
    ks = [str(K_BIG), str(K_SMALL)] if b.startswith("barrier") else ["-"]
    for k in ks:
        j1, jn, it = get(b, "jit_1", k), get(b, "jit_n", k), get(b, "interp", k)
        if j1 is None and jn is None and it is None:
            continue
        n = (j1 or jn or it)["n"]
        name = b if k == "-" else f"{b} K={k}"
        size = f"N={n}"
        if b.startswith("barrier"):
            pk = (b, barrier_cfg(b, int(k)), "WG=256")
            size = f"{n} WI, WG=256"
        else:
            pk = peer_key(b, n)
        c = o3 = pb = pp = None
        impls = ("C-O2", "C-O3-native", "PoCL-basic", "PoCL-pthread")
        cells_p = [DASH] * len(impls)
        if pk:
            c, o3, pb, pp = (pms(pk[0], pk[1], i) for i in impls)
            cells_p = [pcell(pk[0], pk[1], i) for i in impls]
        icell = DASH
        if it is not None:
            icell = cell(it, False)
            if it["status"] == "ok" and it["n"] != n:
                icell += f" (N={it['n']})"
        comp = med(j1, "compile_ms") if j1 else None
        cold = j1["stats"][0].get("compile_ms") if j1 and j1["status"] == "ok" and j1["stats"] else None
        comp_cell = fmt(comp) + (f" (cold {fmt(cold)})" if cold is not None and code_cache else "")
        host = med(j1, "host_ms") if j1 else None
        if med(j1, "kernel_ms") is not None:
            any_stats = True
        pc = pocl_compile(pk[0], pk[2]) if pk else None
        ratios = [ratio(best(j1), c), ratio(best(j1), o3), ratio(best(j1), pb),
                  ratio(best(jn), pp)]
        if k == str(K_SMALL):
            ratios = [DASH] * 4  # the K=0 rows exist for the barrier cost
        cr = get(b, "c", k)
        ch, k1 = c_host(cr), kernel(j1)
        whole = ratio(med(j1), k1 + ch) if ch is not None and k1 is not None else DASH
        if whole != DASH and code_cache and j1["wall"]:
            whole += f" (cold {ratio(j1['wall'][0], k1 + ch)})"
        row = [name, size, cell(j1), cell(jn), icell] + cells_p + ratios + [
            comp_cell, fmt(host), c_cell(cr), whole, fmt(pc)]
        w("| " + " | ".join(row) + " |")

w("")
w("Ratios use the kernel under test's time when `--stats` gave it" + ("" if any_stats else
  " (it did not in this run, so they use whole-process wall time, which "
  "also counts start-up, the input-filling and checking kernels and the "
  "host code)") + "; the peers' times are kernel-only. "
  "n/a: the engine failed (see notes); WRONG: the program's own check "
  "failed; DIFFERS: its output is not that of the first engine that ran it.")

# ---- barrier cost
w("\n## Barrier cost, ns per work-item per barrier\n")
w(f"(t(K={K_BIG}) - t(K={K_SMALL})) * 1e6 / (work-items * barriers per "
  f"work-item at K={K_BIG}); t = median ms. Tessera: whole-process wall "
  "time, kernel_ms in parentheses when available; peers: their kernel "
  "times at WG=256.\n")
bh = ["kernel", "JIT 1T", f"JIT {NPROC}T", "interp", "C -O2 1T",
      "PoCL basic 1T", "PoCL pthread"]
w("| " + " | ".join(bh) + " |")
w("|" + "---|" * len(bh))


def slope(b, label):
    hi, lo = get(b, label, K_BIG), get(b, label, K_SMALL)
    if hi is None or lo is None or hi["n"] != lo["n"]:
        return DASH
    nb = (K_BIG - K_SMALL) * (2 if b == "barrier_xchg" else 1)
    wall_hi, wall_lo = med(hi), med(lo)
    if wall_hi is None or wall_lo is None:
        return "n/a"
    s = f"{(wall_hi - wall_lo) * 1e6 / (hi['n'] * nb):.3f}"
    kh, kl = med(hi, "bench_ms"), med(lo, "bench_ms")
    if kh is None or kl is None:
        kh, kl = med(hi, "kernel_ms"), med(lo, "kernel_ms")
    if kh is not None and kl is not None:
        s += f" ({(kh - kl) * 1e6 / (hi['n'] * nb):.3f})"
    if label == "interp" and hi["n"] != 65536:
        s += f" (N={hi['n']})"
    return s


def pslope(b, impl):
    hi = pms(b, barrier_cfg(b, K_BIG), impl)
    lo = pms(b, barrier_cfg(b, K_SMALL), impl)
    if hi is None or lo is None:
        return DASH
    nb = (K_BIG - K_SMALL) * (2 if b == "barrier_xchg" else 1)
    return f"{(hi - lo) * 1e6 / (65536 * nb):.3f}"


for b in ("barrier_plain", "barrier_xchg"):
    if not any(key[0] == b for key in runs) and not peer:
        continue
    w("| " + " | ".join([b, slope(b, "jit_1"), slope(b, "jit_n"),
                         slope(b, "interp"), pslope(b, "C-O2"),
                         pslope(b, "PoCL-basic"), pslope(b, "PoCL-pthread")]) + " |")

# ---- speedup
sb = env["SPEEDUP_BENCH"]
w(f"\n## Two threads on {sb}\n")
one = get(sb, "jit_1")
two = get(sb, "jit_2") or (get(sb, "jit_n") if NPROC == 2 else None)
if med(one) is not None and med(two) is not None:
    line = f"JIT wall time 1 thread / 2 threads = {med(one) / med(two):.2f}"
    if med(one, "kernel_ms") is not None and med(two, "kernel_ms") is not None:
        line += (f"; kernel_ms 1 thread / 2 threads = "
                 f"{med(one, 'kernel_ms') / med(two, 'kernel_ms'):.2f}")
else:
    line = "JIT: n/a"
n = (one or two or {"n": 0})["n"] or (1024 if sb == "matmul_1024" else 512)
pb = pms("matmul", f"N={n} T=16", "PoCL-basic")
pp = pms("matmul", f"N={n} T=16", "PoCL-pthread")
c1 = pms("matmul", f"N={n} T=16", "C-O2")
c2 = pms("matmul", f"N={n} T=16", "C-O2-omp")
line += (f". For comparison, PoCL basic / pthread = {ratio(pb, pp)}, "
         f"C -O2 / C -O2 OpenMP = {ratio(c1, c2)}.")
w(line)

# ---- interpreter vs JIT at the interpreter's size
small = [(b, k) for (b, label, k) in runs if label == "interp"]
if small:
    w("\n## Interpreter and JIT at the interpreter's size\n")
    w("| benchmark | size | interp ms | JIT 1T ms | interp / JIT 1T |")
    w("|---|---|---|---|---|")
    for b in ORDER:
        for k in ([str(K_BIG), str(K_SMALL)] if b.startswith("barrier") else ["-"]):
            it, j = get(b, "interp", k), get(b, "jit_1_small", k)
            if it is None:
                continue
            name = b if k == "-" else f"{b} K={k}"
            w(f"| {name} | N={it['n']} | {cell(it, False)} | {cell(j, False)} | "
              f"{ratio(med(it), med(j))} |")

fallbacks = sorted({f"{b} {label}" for (b, label, k), r in runs.items()
                    if any(s.get("fallbacks", 0) > 0 for s in r["stats"])})
if notes or fallbacks:
    w("\n## Notes\n")
    for msg, labels in notes.items():
        w(f"- {', '.join(sorted(labels))}: `{msg}`")
    if fallbacks:
        w(f"- `--stats` reported fallbacks > 0 (launches not run by the JIT) in: "
          f"{', '.join(fallbacks)}")

w("\nColumns: JIT 1T = `--engine jit --threads 1`; JIT NT = `--engine jit` "
  "(all cores); interp = `--engine interp`, at a smaller N when shown; "
  "C -O2 1T = the peers' plain C reference (-O2, one thread; the blocked "
  "loop for transpose); C -O3 native 1T = the same C source built by the "
  "peers with -O3 -march=native, one thread; PoCL basic = PoCL's single-threaded CPU device, "
  "PoCL pthread = its multi-threaded one; compile ms and host ms = "
  "`--stats` compile_ms and host_ms of the 1-thread JIT run (host_ms: "
  "host code, allocation and data movement); C whole ms (host) = the "
  "whole-process wall time of the program's plain C version (bench/c/, "
  "gcc -O2) and its C host time, wall time minus its own benchmark-kernel "
  "time (allocation, filling the inputs, the checks, the output, process "
  "start and exit); JIT1 whole / (k + C host) = the 1-thread JIT's "
  "whole-process time over its kernel-under-test time plus that C host "
  "time (the whole-process target is 1.3 at most); PoCL build+JIT = "
  "clBuildProgram plus the first launch's code generation, cold cache." +
  (" Code cache: each configuration's runs share a code cache that starts "
   "empty, so the first run compiles every function (its compile ms and "
   "whole ratio are the `cold` figures) and the others take the kept code; "
   "medians are of all runs." if code_cache else
   " Code cache off (CODE_CACHE=0): every run compiles."))
print("\n".join(out))
PY

cat "$REPORT"
say "report: $REPORT; raw timings: $RAW"
