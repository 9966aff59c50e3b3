#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent reference of the fair recycling sampler, in Python integers.

Prints the faces a die of N sides rolls from the known bit stream that
core_test.c uses, so the C core is checked against a second implementation
written from the algorithm's description, not from the C code.
"""
import sys


def bitstream():
    # The same stream as core_test.c's kat_stream(): byte i is (i * 37 + 11) & 0xff.
    i = 0
    while True:
        b = (i * 37 + 11) & 0xFF
        for k in range(7, -1, -1):
            yield (b >> k) & 1
        i += 1


def roll(n, count):
    bits = bitstream()
    x, m = 0, 1
    out = []
    for _ in range(count):
        if n == 1:
            out.append(0)
            continue
        if n & (n - 1) == 0:
            v = 0
            for _ in range(n.bit_length() - 1):
                v = v * 2 + next(bits)
            out.append(v)
            continue
        while True:
            width = 64 if (n < 2**32 and m < 2**64) else 128
            while m.bit_length() < width:
                x = x * 2 + next(bits)
                m *= 2
            q = m // n
            if x < q * n:
                out.append(x % n)
                x, m = x // n, q
                break
            x, m = x - q * n, m - q * n
    return out


if __name__ == "__main__":
    for n in map(int, sys.argv[1:]):
        print(n, " ".join(map(str, roll(n, 12))))
