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
    if n == 1:
        return [0] * count
    if n & (n - 1) == 0:
        for _ in range(count):
            v = 0
            for _ in range(n.bit_length() - 1):
                v = v * 2 + next(bits)
            out.append(v)
        return out
    # Group k faces into one draw from [0, n^k), n^k <= 2^32.
    per, span = 1, n
    while span * n <= 2**32:
        span *= n
        per += 1
    while len(out) < count:
        while True:
            if span < 2**32 and m < 2**63:
                # narrow: top up to 63 bits when m < span * 2^31
                if m < span * 2**31:
                    while m.bit_length() < 63:
                        x = x * 2 + next(bits)
                        m *= 2
            elif span >= 2**32 and m < span * 2**64:
                while m.bit_length() < 128:
                    x = x * 2 + next(bits)
                    m *= 2
            q = m // span
            if x < q * span:
                u = x % span
                x, m = x // span, q
                break
            x, m = x - q * span, m - q * span
        # The draw's base-n digits, most significant first, are the faces.
        for i in range(per - 1, -1, -1):
            out.append(u // n**i % n)
    return out[:count]


if __name__ == "__main__":
    for n in map(int, sys.argv[1:]):
        print(n, " ".join(map(str, roll(n, 30))))
