# paper-plot.gp - the chart of bench/paper, in the layout of the Satin paper's Figure 4:
# one graph per application; in each, per policy, a group of bars: the speedup on one
# cluster of 64 (white), then on four clusters of 16 at each wide-area setting.
#
#   gnuplot -e "dir='DATA_DIR'; out='FILE.png'" bench/paper-plot.gp
#
# DATA_DIR holds meta.gp (napps, names, cols, title) and speedup_I.dat (I = 1..napps: a
# header line, then per policy its name and the five speedups), written by bench/paper.
load dir.'/meta.gp'

rows = (napps + cols - 1) / cols
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 440 * cols, 320 * rows + 70 font 'sans,10'
} else {
    set terminal png size 440 * cols, 320 * rows + 70
}
set output out

set style data histograms
set style histogram clustered gap 1
set style fill solid 1.0 border rgb 'black'
set boxwidth 0.9
set grid ytics lc rgb '#dddddd'
set key outside bottom center horizontal maxrows 1 width -1 font ',8' samplen 1.2
set xtics nomirror scale 0
set ytics nomirror
set yrange [0:64]
colors = "#ffffff #9ecae1 #4292c6 #fdae6b #e6550d"

set multiplot layout rows, cols title title
do for [i = 1:napps] {
    set title word(names, i)
    if ((i - 1) % cols == 0) { set ylabel 'speedup' } else { unset ylabel }
    f = sprintf('%s/speedup_%d.dat', dir, i)
    plot for [c = 2:6] f using c:xtic(1) title columnheader(c) lc rgb word(colors, c - 1)
}
unset multiplot
