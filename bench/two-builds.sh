# Sourced by the benches that time two builds side by side (startup-bench.sh, everyday-bench.sh):
# each row's runs are in "$WORK/a.ROW" and "$WORK/b.ROW", one line per run from bench/runstat.c
# (microseconds, then peak RSS in KiB).

stats() { # file -> "median min max rss"
    sort -n -k1 "$1" | awk '{t[NR]=$1; r[NR]=$2} END {m=int((NR+1)/2); printf "%.2f %.2f %.2f %d", t[m]/1000, t[1]/1000, t[NR]/1000, r[m]/1024}'
}

report_rows() { # ROW... -> the table of A against B, with B's median over A's
    printf '\n%-10s %-34s %-34s %s\n' "" "A: $(basename "$(dirname "$A")")/$(basename "$A")" "B: $(basename "$(dirname "$B")")/$(basename "$B")" "B/A"
    local row ma mina maxa rssa mb minb maxb rssb
    for row in "$@"; do
        read -r ma mina maxa rssa <<<"$(stats "$WORK/a.$row")"
        read -r mb minb maxb rssb <<<"$(stats "$WORK/b.$row")"
        printf '%-10s %7s ms (%s-%s) %4s MB      %7s ms (%s-%s) %4s MB      %.2f\n' "$row" "$ma" "$mina" "$maxa" "$rssa" \
            "$mb" "$minb" "$maxb" "$rssb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN {print b / a}')"
    done
}
