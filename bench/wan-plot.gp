# wan-plot.gp - the chart of bench/wan, in the manner of the Satin paper's
# Figures 4 and 5: one column per workload; on top the speedups, below the
# inter-cluster messages per second; per policy a group of bars, one per
# wide-area setting (white: one cluster, no WAN).
#
#   gnuplot -e "dir='DATA_DIR'; out='FILE.png'" bench/wan-plot.gp
#
# DATA_DIR holds meta.gp (nwl, names, nodes, clusters), speedup_I.dat and
# msgs_I.dat (I = 1..nwl), written by bench/wan-report.py.
load dir.'/meta.gp'

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 460 * nwl + 140, 900 font 'sans,10'
} else {
    set terminal png size 460 * nwl + 140, 900
}
set output out

set style data histograms
set style histogram clustered gap 1
set style fill solid 1.0 border rgb 'black'
set boxwidth 0.9
set grid ytics lc rgb '#dddddd'
set key outside bottom center horizontal font ',9' samplen 1.5
set xtics nomirror scale 0
set ytics nomirror
set yrange [0:*]
colors = "#ffffff #9ecae1 #4292c6 #fdae6b #e6550d"

set multiplot layout 2, nwl title sprintf("Satin grid, %d emulated processors: 1 cluster of %d, or %d clusters x %d\nwide-area links: one-way latency (ms), bandwidth (KByte/s)", nodes, nodes, clusters, nodes / clusters)

do for [i = 1:nwl] {
    set title sprintf("%s: speedup", word(names, i))
    if (i == 1) { set ylabel 'speedup vs sequential' } else { unset ylabel }
    f = sprintf('%s/speedup_%d.dat', dir, i)
    plot for [c = 2:6] f using c:xtic(1) title columnheader(c) lc rgb word(colors, c - 1)
}
do for [i = 1:nwl] {
    set title sprintf("%s: inter-cluster messages/s", word(names, i))
    if (i == 1) { set ylabel 'WAN messages per second' } else { unset ylabel }
    f = sprintf('%s/msgs_%d.dat', dir, i)
    plot for [c = 2:5] f using c:xtic(1) title columnheader(c) lc rgb word(colors, c)
}
unset multiplot
