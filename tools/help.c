// SPDX-License-Identifier: GPL-2.0
/*
 * help.c - dice --help: the summary of the notation and the options (the
 * whole story is dice(1); a new operator goes in both)
 */
#include <stdio.h>

#include "cli.h"

void usage(FILE *f)
{
	fputs(
"Usage: dice [OPTION]... EXPRESSION...\n"
"       dice [OPTION]... < FILE      (one expression a line)\n"
"       dice -i [OPTION]...          (type expressions at a prompt)\n"
"Roll dice from the kernel's /dev/dice, or print their exact distribution.\n"
"\n"
"Notation (see dice(1)); '>' and '<' are strict: >8 means 9 or more\n"
"(Roll20 reads >8 as 8 or more: write >=8, or use --roll20):\n"
"  3d6  d20  d%  4dF  4dF.1  d{1,1,2,5}  d{1:1,2:3} dice groups\n"
"  3d6+2d4-1  2*(d6+1)  2d6*-1  7%3  abs(d6-d6)   arithmetic\n"
"  floor(3d6/2)  ceil(d6/4)  round(2d6/3)         division, rounded\n"
"  max(d20,d20)  min(3d6,2d8)  d6^2  2**d4        greatest, least; powers\n"
"  6x3d6                                          roll 6 times\n"
"  4d6kh3  4d6k3  2d20kl1  4d6dl1  4d6dh1  4d6s1  keep/drop\n"
"  3d6!  3d6!>=5  3d6!!  3d6!p  3d6!!p            explode, compound, penetrate\n"
"  2d6r1  2d6r<3  2d6ro1  5d10u  5d10uo           reroll (once); unique (once)\n"
"  10d10>=8  10d10>=8f1  5d6even  5d6odd          count successes (f: failures)\n"
"  3d6!:2  3d6!o  4d6ra6  1d20ms15  4d6mi2        caps, reroll-and-add, margin\n"
"  4d6min2  4d6max5  8d6m  8d6mt  8d6mt3          clamp faces; matches\n"
"  d20cs>=19cf1  4d6sa  4d6sd                     mark criticals; sort\n"
"  {4d6+3d8}kh1  {3d6, 2d6+4}kh1  {5d6!!}>=8      grouped rolls\n"
"  (1d4)d6                                        computed number of dice\n"
"  2d6[fire]+1d4[cold]  2d20kh1 # advantage       labels and comments\n"
"\n"
"Options:\n"
"  -s, --breakdown      show every die: kept, dropped, exploded, rerolled\n"
"  -j, --json           JSON output (one object a line per expression)\n"
"  -d, --dist           print the exact distribution: mean, variance,\n"
"                       percentiles, at least/at most; several expressions\n"
"                       side by side\n"
"      --at-least, --at-most\n"
"                       side by side, compare P(X >= v) or P(X <= v)\n"
"      --csv            --dist or --histogram as CSV\n"
"  -H, --histogram=N    roll N times and draw a histogram against the exact\n"
"                       expectation, with a chi-square test\n"
"      --bars=WHEN      bars for --dist and --histogram: auto (on a\n"
"                       terminal), always, never\n"
"  -b, --bits           report random bits spent against the entropy bound\n"
"  -m, --method=NAME    sampling method: recycle (default), viglietta,\n"
"                       batch, alias, rejection\n"
"  -S, --seed=N         seeded replay: a userspace engine whose rolls follow\n"
"                       from N (reproducible, NOT random)\n"
"  -u, --userspace      roll with the userspace engine (getrandom()) instead\n"
"                       of /dev/dice; also DICE_ENGINE=userspace\n"
"      --engine=NAME    device (/dev/dice) or userspace\n"
"  -w, --weights=W1,... the die dW is loaded: side i has weight Wi\n"
"  -f, --faces=F1,...   the die dW has these face values\n"
"                       (with --weights or --faces, EXPRESSION defaults to dW)\n"
"  -i, --interactive    read expressions at a prompt\n"
"      --roll20         read < and > as Roll20 does: >8 means 8 or more\n"
"      --max-dice=N     most dice per expression (default 1000000)\n"
"      --max-explode=N  most extra dice one exploding die adds (default 100,\n"
"                       10 with --dist)\n"
"  -h, --help           this help\n"
"  -V, --version        version\n"
"\n"
"Exit status: 0 success, 1 failure, 2 bad usage, notation or limit.\n", f);
}
